/** Maps a stack frame's path to a workspace file: exact, then the longest matching path suffix (package path for Java/.NET). */
import type { Frame } from './stack-frames.ts';

/** A frame mapped to a file, with how sure the path match is. */
export interface FileMatch {
  path: string;
  /** 1 when the whole workspace path is a suffix of the frame path (or the package path matches). */
  confidence: number;
}

/** The workspace files by base name, for suffix matching. */
export function filesByBase(paths: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of paths) {
    const base = p.slice(p.lastIndexOf('/') + 1);
    const list = out.get(base);
    if (list) list.push(p);
    else out.set(base, [p]);
  }
  return out;
}

/** The file a frame points at, or null when no workspace file has its name (a library or runtime frame). */
export function matchFrameFile(frame: Frame, root: string, byBase: Map<string, string[]>): FileMatch | null {
  let p = frame.path;
  const rootSlash = root.endsWith('/') ? root : `${root}/`;
  if (p.startsWith(rootSlash)) p = p.slice(rootSlash.length);
  const segs = p.split('/').filter((s) => s && s !== '.');
  const base = segs.at(-1);
  if (!base) return null;
  const candidates = byBase.get(base);
  if (!candidates?.length) return null;
  // Java and .NET frames carry the package, not the path: compare it with the file's directories.
  const want = frame.qualifiedType ? [...frame.qualifiedType.split('.').slice(0, -1), base] : segs;
  let best = null as FileMatch | null;
  let bestLen = -1;
  for (const c of candidates) {
    const cs = c.split('/');
    let k = 0;
    while (k < cs.length && k < want.length && cs[cs.length - 1 - k] === want[want.length - 1 - k]) k++;
    const whole = k === cs.length || (frame.qualifiedType !== undefined && k === want.length);
    const confidence = whole ? 1 : k / cs.length;
    if (k > bestLen || (k === bestLen && best && confidence > best.confidence)) {
      best = { path: c, confidence: Math.round(confidence * 1000) / 1000 };
      bestLen = k;
    } else if (k === bestLen && best !== null) best = { path: best.path, confidence: Math.min(best.confidence, 0.5) }; // ambiguous
  }
  return best;
}
