import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number) => ({ key, value: { intValue: String(v) } });
/** A span that maps by its code.* attributes (src/cart.ts#total of the fixture). */
const good = { name: 'total', startTimeUnixNano: '0', endTimeUnixNano: '3000000', attributes: [str('code.filepath', 'src/cart.ts'), int('code.lineno', 5)] };

describe('runtime_overlay with malformed OTLP and absurd attributes', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reads the spans of an export whose pieces are not all of the OTLP shape instead of failing inside the handler', async () => {
    // Each failed with M1ND_ERR_CALL_HANDLER: "(list ?? []) is not iterable", "Cannot read properties of null".
    const exports = [
      { resourceSpans: [null, 5, { scopeSpans: {} }, { resource: { attributes: {} }, scopeSpans: [null, { spans: {} }, { spans: [good] }] }] },
      { resourceSpans: [{ resource: { attributes: [null, 5, { key: 'service.name' }] }, scopeSpans: [{ spans: [{ ...good, attributes: [null, 'a', { key: 'http.route' }, ...good.attributes] }] }] }] },
      { ...good, attributes: {} },
      { ...good, name: { not: 'a string' }, attributes: [...good.attributes, { key: 5, value: 'x' }] },
    ];
    for (const [i, spans] of exports.entries()) {
      const r = (await h.call('runtime_overlay', { agent_id: 'a', scope: 'agent', spans })).json;
      assert.equal(r.error, undefined, `export ${i}: ${JSON.stringify(r.error)}`);
      assert.equal(r.spans, 1, `export ${i}: ${JSON.stringify(r)}`);
      assert.equal(r.mapped, 1, `export ${i}: ${JSON.stringify(r)}`);
    }
    // The same from a workspace file.
    fs.writeFileSync(path.join(ws, 'odd.json'), exports.slice(0, 2).map((e) => JSON.stringify(e)).join('\n'));
    const r = (await h.call('runtime_overlay', { agent_id: 'a', scope: 'agent', path: 'odd.json' })).json;
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual([r.spans, r.mapped], [2, 2]);
  });

  it('quotes at most a few hundred characters of an absurd attribute in its reasons', async () => {
    const long = `/a${'/b'.repeat(100_000)}`;
    const spans = [
      { name: 'GET /x', attributes: [str('http.route', long)] },
      { name: 'x', attributes: [str('code.filepath', `${'d/'.repeat(50_000)}nope.ts`)] },
      { name: 'x', attributes: [str('code.function', 'f'.repeat(100_000))] },
    ];
    const r = (await h.call('runtime_overlay', { agent_id: 'a', scope: 'agent', spans })).json;
    assert.equal(r.unmapped.length, 3, JSON.stringify(r).slice(0, 500));
    for (const u of r.unmapped) assert.ok(u.reason.length < 400, u.reason.slice(0, 300));
    assert.ok(JSON.stringify(r).length < 8000, `${JSON.stringify(r).length} characters`);
  });

  it('maps a route to its live handler when an old registration of it is commented out (both counted: no handler mapped)', async () => {
    fs.writeFileSync(path.join(ws, 'src/orders.ts'), "export function oldGetOrder() {}\nexport function getOrder() {}\n// app.get('/orders/:id', oldGetOrder);\n/*\napp.get('/orders/:id', oldGetOrder);\n*/\napp.get('/orders/:id', getOrder);\n");
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('runtime_overlay', { agent_id: 'a', scope: 'agent', spans: [{ name: 'GET /orders/:id', attributes: [str('http.route', '/orders/:id')] }] })).json;
    assert.deepEqual(r.via, { http_route: 1 }, JSON.stringify(r.unmapped));
    assert.equal(r.hot.find((x: any) => x.id.startsWith('function:src/orders.ts'))?.id, 'function:src/orders.ts#getOrder');
  });

  it("maps a route to the code's handler when a test registers the same route with its own (two handlers: none mapped)", async () => {
    fs.writeFileSync(path.join(ws, 'src/invoices.ts'), "export function getInvoice() {}\napp.get('/invoices/:id', getInvoice);\n");
    fs.mkdirSync(path.join(ws, 'test'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'test/invoices.test.ts'), "function fakeInvoice() {}\nserver.get('/invoices/:id', fakeInvoice);\n");
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('runtime_overlay', { agent_id: 'a', scope: 'agent', spans: [{ name: 'GET /invoices/:id', attributes: [str('http.route', '/invoices/:id')] }] })).json;
    assert.deepEqual(r.via, { http_route: 1 }, JSON.stringify(r.unmapped));
    assert.ok(r.hot.some((x: any) => x.id === 'function:src/invoices.ts#getInvoice'), JSON.stringify(r.hot));
  });
});
