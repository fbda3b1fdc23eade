/**
 * A text document's bytes as a string: UTF-16 with a byte-order mark (little- or big-endian, as
 * Windows editors save "Unicode" text) is decoded as UTF-16, anything else as UTF-8; a leading BOM
 * is dropped. Without this a UTF-16 file read as UTF-8 had a NUL every other character (the code
 * ingest classes such bytes binary). Imports nothing: the conversion worker loads it too.
 */
export function decodeText(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2, 2 + ((buf.length - 2) & ~1)).toString('utf16le');
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    // Node reads UTF-16 little-endian only: the pairs swapped (a copy; an odd last byte is dropped).
    const le = Buffer.from(buf.subarray(2, 2 + ((buf.length - 2) & ~1)));
    le.swap16();
    return le.toString('utf16le');
  }
  const text = buf.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
