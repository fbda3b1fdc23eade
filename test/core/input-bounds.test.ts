import assert from 'node:assert/strict';
import type { TSchema } from '../../core/index.ts';
import { connect, type Harness } from '../helpers/mcp.ts';

/** Every string and array in a schema that has no bound: `verb.path` for each. */
function unbounded(verb: string, schema: TSchema, at = ''): string[] {
  const out: string[] = [];
  if (schema.type === 'string' && schema.maxLength === undefined && schema.enum === undefined && schema.const === undefined) out.push(`${verb}${at}`);
  if (schema.type === 'array') {
    if (schema.maxItems === undefined) out.push(`${verb}${at}[]`);
    out.push(...unbounded(verb, schema.items, `${at}[]`));
  }
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, TSchema>)) out.push(...unbounded(verb, v, `${at}.${k}`));
  for (const v of (schema.anyOf ?? []) as TSchema[]) out.push(...unbounded(verb, v, at));
  return out;
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('bounded input, refused cheaply before any work', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await connect({ env: { M1ND_MAX_ARGUMENT_BYTES: '200000' } });
  });
  after(() => h.close());

  it('bounds every string and array parameter of every registered verb, any tier', () => {
    const records = h.host.current.records();
    let params = 0;
    const missing: string[] = [];
    for (const v of records) {
      params += Object.keys(v.input.properties ?? {}).length;
      missing.push(...unbounded(v.name, v.input));
    }
    assert.ok(records.length > 50 && params > 200, `${records.length} verbs, ${params} parameters`);
    assert.deepEqual(missing, []);
  });

  it('refuses a 100 KB tool name quickly, quoting only a short prefix', async () => {
    const t = performance.now();
    const { result, json } = await h.call('x'.repeat(100_000), { agent_id: 'a' });
    assert.ok(performance.now() - t < 1000);
    assert.equal(result.isError, true);
    assert.equal(json.error.code, 'M1ND_ERR_CALL_INPUT_TOO_LARGE');
    assert.ok(JSON.stringify(json).length < 600, JSON.stringify(json).slice(0, 200));
    // A name of 128 characters is still looked up (an unknown verb, not a size refusal).
    assert.equal((await h.call('y'.repeat(128), { agent_id: 'a' })).json.error.code, 'M1ND_ERR_CALL_UNKNOWN_VERB');
  });

  it('refuses arguments over the configured byte cap (M1ND_MAX_ARGUMENT_BYTES) and accepts them under it', async () => {
    const big = await h.call('help', { agent_id: 'a', error_text: 'e'.repeat(10_000), recent_tools: Array.from({ length: 900 }, () => 'z'.repeat(250)) });
    assert.equal(big.json.error.code, 'M1ND_ERR_CALL_INPUT_TOO_LARGE');
    assert.match(big.json.error.message, /200000 bytes/);
    const small = await h.call('help', { agent_id: 'a', mode: 'recovery', error_text: 'e'.repeat(10_000) });
    assert.notEqual(small.result.isError, true);
  });

  it('answers 10,000-deep nesting with a validation error, not a stack overflow; 64 levels pass to the schema check', async () => {
    const deep = await h.call('help', { agent_id: 'a', x: nested(10_000) });
    assert.equal(deep.json.error.code, 'M1ND_ERR_CALL_INPUT_TOO_LARGE');
    assert.match(deep.json.error.message, /nested deeper than 64/);
    const shallow = await h.call('help', { agent_id: 'a', x: nested(60) });
    assert.equal(shallow.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS', 'reaches validation, which refuses the unknown parameter');
  });

  it('quotes an unknown 100 KB parameter name back as a short prefix', async () => {
    const { json } = await h.call('help', { agent_id: 'a', ['k'.repeat(100_000)]: 1 });
    assert.equal(json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.match(json.error.message, /unknown parameter \/k{64}… \(100000 characters\)/);
    assert.ok(JSON.stringify(json).length < 1500, `${JSON.stringify(json).length} characters`);
  });

  it('refuses a 100 KB path (batch_view) and a 100 KB scope (session_handshake) in milliseconds, echoing a short prefix', async () => {
    for (const [verb, args] of [
      ['batch_view', { agent_id: 'a', files: ['x'.repeat(100_000)] }],
      ['session_handshake', { agent_id: 'a', scope: 'x'.repeat(100_000) }],
      ['search', { agent_id: 'a', query: 'q'.repeat(100_000) }],
    ] as const) {
      const t = performance.now();
      const { result, json } = await h.call(verb, args);
      const ms = performance.now() - t;
      assert.equal(result.isError, true, verb);
      assert.equal(json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS', verb);
      assert.match(json.error.message, /length <= \d+/, verb);
      assert.ok(ms < 500, `${verb} took ${ms.toFixed(0)} ms`);
      assert.ok(JSON.stringify(json).length < 1500, `${verb} echoed ${JSON.stringify(json).length} characters`);
    }
  });

  it('handles the largest accepted path and scope in time that grows no faster than n log n', async () => {
    // The best of three calls: one call's wall time also holds a collection or a descheduled thread on a busy machine.
    const timeOf = async (verb: string, args: Record<string, unknown>) => {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        await h.call(verb, args);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    // Warm both verbs first, then compare a 1/4 length against the full one (quadratic would be ~16x).
    await timeOf('batch_view', { agent_id: 'a', files: ['w'.repeat(100)] });
    await timeOf('session_handshake', { agent_id: 'a', scope: 'w'.repeat(100) });
    const path = [await timeOf('batch_view', { agent_id: 'a', files: ['p'.repeat(1024)] }), await timeOf('batch_view', { agent_id: 'a', files: ['p'.repeat(4096)] })];
    const scope = [await timeOf('session_handshake', { agent_id: 'a', scope: 's'.repeat(4096) }), await timeOf('session_handshake', { agent_id: 'a', scope: 's'.repeat(16_384) })];
    assert.ok(path[1] < 1000 && scope[1] < 1000, `batch_view 4096: ${path[1].toFixed(0)} ms, session_handshake 16384: ${scope[1].toFixed(0)} ms`);
    assert.ok(path[1] < Math.max(50, path[0] * 8), `batch_view path 1024 → 4096: ${path.map((x) => x.toFixed(1)).join(' → ')} ms`);
    assert.ok(scope[1] < Math.max(50, scope[0] * 8), `session_handshake scope 4096 → 16384: ${scope.map((x) => x.toFixed(1)).join(' → ')} ms`);
  });
});
