/**
 * Malformed and odd JSON-RPC messages for the transport fuzz, each with the answer it must get:
 * `{ id }` (an answer carrying that id), `null` (an error answer with id null) or `none`
 * (notifications and responses ask for no answer). Deterministic for a seed.
 */

/** What a message must get back. */
export type Expectation = { id: string | number } | 'null' | 'none';

/** One fuzz message: the raw line (no newline) and its expected answer. */
export interface FuzzMessage {
  family: string;
  line: string;
  expect: Expectation;
}

/** A small seeded PRNG (mulberry32), so a failing run can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VERBS = ['health', 'help', 'search', 'view', 'am_i_stale', 'batch_view', 'seek', 'glob', 'nope', 'x'.repeat(300)];

function nested(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
}

/** `count` messages of every family, interleaved; ids are unique within the run. */
export function fuzzMessages(count: number, seed = 12): FuzzMessage[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const junk = (n: number) => Array.from({ length: n }, () => String.fromCharCode(32 + Math.floor(rnd() * 95))).join('');
  const out: FuzzMessage[] = [];
  for (let i = 0; i < count; i++) {
    const id = 100_000 + i;
    const sid = `s-${i}`;
    const families: (() => FuzzMessage)[] = [
      // Broken JSON: -32700 with id null.
      () => ({ family: 'broken-json', line: pick(['{', '{"jsonrpc":"2.0","id":', `{"jsonrpc":"2.0","id":${id},"method":"ping"`, '}{', "{'a':1}", junk(1 + Math.floor(rnd() * 40)).replace(/^[\s\d"[{tfn-]/, '@')]), expect: 'null' }),
      // JSON that is no message object.
      () => ({ family: 'not-an-object', line: pick(['1', '"ping"', 'null', 'true', '[]', '{}', '[1,2]']), expect: 'null' }),
      // Batch arrays (not supported by the protocol version served).
      () => ({ family: 'batch', line: JSON.stringify([{ jsonrpc: '2.0', id, method: 'ping' }]), expect: 'null' }),
      // An id the SDK rejects but that can be read back.
      () => ({ family: 'fractional-id', line: JSON.stringify({ jsonrpc: '2.0', id: id + 0.5, method: 'ping' }), expect: { id: id + 0.5 } }),
      () => ({ family: 'id-null', line: JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }), expect: 'null' }),
      () => ({ family: 'id-object', line: JSON.stringify({ jsonrpc: '2.0', id: { n: id }, method: 'tools/list' }), expect: 'null' }),
      () => ({ family: 'wrong-version', line: JSON.stringify({ jsonrpc: '1.0', id: sid, method: 'ping' }), expect: { id: sid } }),
      () => ({ family: 'method-not-string', line: JSON.stringify({ jsonrpc: '2.0', id, method: 42 }), expect: { id } }),
      () => ({ family: 'bad-progress-token', line: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'health', arguments: { agent_id: 'f' }, _meta: { progressToken: { bad: true } } } }), expect: { id } }),
      // Valid shape, unknown method: -32601 from the protocol layer.
      () => ({ family: 'unknown-method', line: JSON.stringify({ jsonrpc: '2.0', id: sid, method: `x/${junk(6)}` }), expect: { id: sid } }),
      // Valid tools/call with hostile arguments: an isError result, never a crash.
      () => {
        const args = pick<() => unknown>([
          () => ({ agent_id: 'f', query: junk(50), mode: 'regex' }),
          () => ({ agent_id: 'f', file_path: pick(['../../etc/passwd', '/etc/shadow', 'a\u0000b', 'x'.repeat(5000)]) }),
          () => ({ agent_id: 'f', deep: nested(100 + Math.floor(rnd() * 3000)) }),
          () => ({ agent_id: 123, files: 'nope' }),
          () => pick([null, 7, 'str', [1, 2]]),
          () => ({ agent_id: 'f', query: 'q'.repeat(20_000) }),
        ])();
        return { family: 'hostile-call', line: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: pick(VERBS), arguments: args } }), expect: { id } };
      },
      () => ({ family: 'ping', line: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }), expect: { id } }),
      () => ({ family: 'tools-list', line: JSON.stringify({ jsonrpc: '2.0', id: sid, method: 'tools/list', params: pick([{}, { cursor: 7 }, { _meta: 'x' }]) }), expect: { id: sid } }),
      // Notifications (valid or not) and stray responses ask for no answer.
      () => ({ family: 'notification', line: JSON.stringify({ jsonrpc: '2.0', method: pick(['notifications/cancelled', 'notifications/x', 'notifications/progress']), params: pick([{}, { requestId: 'nope' }, { progressToken: 1, progress: 'a' }]) }), expect: 'none' }),
      () => ({ family: 'stray-response', line: JSON.stringify({ jsonrpc: '2.0', id: 900_000 + i, result: {} }), expect: 'none' }),
      () => ({ family: 'blank', line: pick(['', '   ', '\r']), expect: 'none' }),
    ];
    out.push(families[i % families.length]());
  }
  return out;
}
