import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const ms = (n: number) => String(n * 1_000_000);
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number) => ({ key, value: { intValue: String(v) } });

/** A span as the OTLP JSON exporter writes it: start 0, end after `durationMs`. */
function span(name: string, durationMs: number, attributes: unknown[], error = false) {
  return { name, startTimeUnixNano: '0', endTimeUnixNano: ms(durationMs), attributes, status: error ? { code: 2 } : {} };
}

/** One line of the collector's file exporter: a resourceSpans export for a service. */
function exportLine(service: string, spans: unknown[]): string {
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [str('service.name', service)] }, scopeSpans: [{ spans }] }] });
}

describe('runtime_overlay', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    // Spans from a deployed copy: absolute paths of another machine, mapped by their suffix.
    const shop = [1, 2, 3, 4, 10].map((d) => span('total', d, [str('code.function', 'total'), str('code.filepath', '/srv/shop/src/cart.ts'), int('code.lineno', 5)]));
    shop.push(span('Cart.checkout', 12, []));
    shop.push(span('GET /health', 1, [str('http.route', '/health')]));
    const worker = [span('retry.backoff', 2, [str('code.filepath', 'py/retry.py'), int('code.lineno', 7)], true), span('retry.backoff', 3, [str('code.function', 'backoff'), str('code.filepath', 'py/retry.py')])];
    fs.mkdirSync(path.join(ws, 'telemetry'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'telemetry/traces.json'), `${exportLine('shop', shop)}\n${exportLine('worker', worker)}\n`);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('marks the functions the spans ran hot, with latency percentiles and errors, and says what it could not map', async () => {
    const r = (await h.call('runtime_overlay', { agent_id: 'a', path: 'telemetry/traces.json' })).json;
    assert.equal(r.spans, 9);
    assert.equal(r.mapped, 8);
    assert.deepEqual(r.via, { code_lineno: 6, code_function_in_file: 1, span_name: 1 });
    assert.deepEqual(r.unmapped, [{ reason: 'no code.* attributes and the span name is no symbol', count: 1 }]);
    const byId = Object.fromEntries(r.hot.map((x: any) => [x.id, x]));
    assert.equal(r.hot[0].id, 'function:src/cart.ts#total');
    assert.deepEqual([byId['function:src/cart.ts#total'].spans, byId['function:src/cart.ts#total'].p50_ms, byId['function:src/cart.ts#total'].p99_ms], [5, 3, 10]);
    assert.deepEqual([byId['function:py/retry.py#backoff'].spans, byId['function:py/retry.py#backoff'].errors], [2, 1]);
    assert.equal(byId['method:src/cart.ts#Cart.checkout'].spans, 1);
    assert.equal(byId['function:src/math.ts#add'], undefined);
    assert.equal(r.stored, true);
    assert.ok(r.boosted >= 3);
  });

  it('accumulates posted spans into the persisted overlay, filtered by service, across servers', async () => {
    const spans = [JSON.parse(exportLine('worker', [span('backoff', 5, [str('code.function', 'backoff')])])), JSON.parse(exportLine('other', [span('mul', 5, [])]))];
    const r = (await h.call('runtime_overlay', { agent_id: 'a', spans, service_name: 'worker' })).json;
    assert.equal(r.spans, 1);
    const second = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const again = (await second.call('runtime_overlay', { agent_id: 'b', spans: [span('mul', 1, [])], boost_strength: 0 })).json;
      const byId = Object.fromEntries(again.hot.map((x: any) => [x.id, x]));
      assert.equal(byId['function:py/retry.py#backoff'].spans, 3);
      assert.equal(byId['function:src/math.ts#mul'].spans, 1);
      assert.equal(again.boosted, 0);
    } finally {
      await second.close();
    }
  });
});
