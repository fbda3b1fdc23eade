import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../helpers/ping.ts';
import { ADVERSARIAL } from '../../helpers/adversarial-routes.ts';

const str = (key: string, v: string) => ({ key, value: { stringValue: v } });

describe('runtime_overlay: reading routes from adversarial source stays bounded', function () {
  this.timeout(300000);
  let h: Harness | undefined;
  after(() => h?.close());

  it('maps a span by its route while the workspace holds files made to slow the route reading, never holding the loop long', async () => {
    const ws = tempDir();
    const mounts = Array.from({ length: 16 }, (_, i) => `app.use('/p${i}', self);\n`).join('');
    const files: Record<string, string> = {
      ...ADVERSARIAL,
      'self.js': `import self from './self.js';\nconst app = express();\n${mounts}self.get('/r', handler);\nfunction handler() {}\n`,
      'dollars.ts': `const a = '/x';\n${'$a'.repeat(24 << 10)}\n`,
      'server.js': "const app = express();\nfunction getOrder(req, res) {\n  res.json({});\n}\napp.get('/api/orders/:id', getOrder);\n",
    };
    for (const [rel, text] of Object.entries(files)) fs.writeFileSync(path.join(ws, rel), text);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const spans = [{ name: 'GET /api/orders/:id', startTimeUnixNano: '0', endTimeUnixNano: '2000000', attributes: [str('http.route', '/api/orders/:id'), str('http.request.method', 'GET')] }];
    const { result, held, gc } = await pingDuringGc(h, () => h!.call('runtime_overlay', { agent_id: 'a', spans, scope: 'agent' }));
    const own = ownHeld(held, gc);
    assert.ok(Math.max(0, ...own) < 400, describeHeld(own));
    const r = result.json;
    assert.equal(r.mapped, 1, JSON.stringify(r));
    assert.equal(r.hot[0].id, 'function:server.js#getOrder');
  });

  it('looks up distinct span routes no registered route serves by their tails, not against every registered route (100,000 against 20,000: ~30 s)', async () => {
    const ws = tempDir();
    fs.mkdirSync(path.join(ws, 'src'));
    for (let f = 0; f < 20; f++) {
      const routes = Array.from({ length: 1000 }, (_, i) => `app.get('/svc${f}/res${i}/:id/items/:item', h${i});`).join('\n');
      fs.writeFileSync(path.join(ws, `src/r${f}.ts`), `${routes}\n${Array.from({ length: 1000 }, (_, i) => `export function h${i}() {}`).join('\n')}\n`);
    }
    const spans = Array.from({ length: 100_000 }, (_, i) => ({ name: 'x', attributes: [str('http.route', `/deep/${i}/a/b/c/d/e`)] }));
    fs.writeFileSync(path.join(ws, 'spans.json'), JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
    const other = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await other.call('ingest', { agent_id: 'a', path: ws });
      const started = performance.now();
      const r = (await other.call('runtime_overlay', { agent_id: 'a', scope: 'agent', path: 'spans.json' })).json;
      const took = performance.now() - started;
      assert.deepEqual([r.spans, r.mapped, r.routes?.registered], [100_000, 0, 20_000], JSON.stringify(r).slice(0, 400));
      assert.ok(took < 10_000, `${Math.round(took)} ms`);
    } finally {
      await other.close();
    }
  });

  it('says how many registrations a file held past the per-file cap, and which file, instead of cutting them silently', async () => {
    const ws = tempDir();
    const routes = Array.from({ length: 2100 }, (_, i) => `app.get('/gen/r${i}/:id', h${i});`).join('\n');
    fs.writeFileSync(path.join(ws, 'big.ts'), `${routes}\n${Array.from({ length: 2100 }, (_, i) => `export function h${i}() {}`).join('\n')}\n`);
    const other = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await other.call('ingest', { agent_id: 'a', path: ws });
      const spans = [{ name: 'x', attributes: [str('http.route', '/gen/r5/:id')] }];
      const r = (await other.call('runtime_overlay', { agent_id: 'a', scope: 'agent', spans })).json;
      assert.equal(r.hot?.[0]?.id, 'function:big.ts#h5', JSON.stringify(r).slice(0, 400));
      assert.deepEqual([r.routes?.registered, r.routes?.cut, r.routes?.cut_files], [2000, 100, ['big.ts']], JSON.stringify(r.routes));
      assert.match(r.routes.hint, /first 2000 routes/);
    } finally {
      await other.close();
    }
  });
});

