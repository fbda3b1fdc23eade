import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';
import { ADVERSARIAL, fill } from '../../helpers/adversarial-routes.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../helpers/ping.ts';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/**
 * An app requesting /api/orders/{id} of a service whose repository also holds files written to make
 * the route reading slow: `files` beside the service's real route.
 */
function repos(files: Record<string, string>): { parent: string; app: string; svc: string } {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-bounds-')));
  const app = path.join(parent, 'app');
  const svc = path.join(parent, 'svc');
  write(app, {
    'package.json': '{"name":"app","type":"module","private":true}\n',
    'src/client.ts': "export async function order(id: string) {\n  return fetch(`${BASE}/api/orders/${id}`);\n}\n",
  });
  write(svc, {
    'package.json': '{"name":"svc","type":"module","private":true}\n',
    'server.js': "import express from 'express';\nconst app = express();\nfunction getOrder(req, res) {\n  res.json({});\n}\napp.get('/api/orders/:id', getOrder);\n",
    ...files,
  });
  return { parent, app, svc };
}

/** Federates app and svc while pinging: the call's answer and the server's worst own hold of the loop. */
async function federateTimed(files: Record<string, string>): Promise<{ r: any; worst: number; message: string; h: Harness }> {
  const { parent, app, svc } = repos(files);
  const h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
  await h.call('ingest', { agent_id: 'a', path: app });
  // The service's graph first (its parse is not what is measured).
  await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc', path: svc }], detect_cross_repo_edges: false });
  const { result, held, gc } = await pingDuringGc(h, () => h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc', path: svc }], incremental: true }));
  const own = ownHeld(held, gc);
  return { r: result.json, worst: Math.max(0, ...own), message: describeHeld(own), h };
}

describe('federate: reading routes from adversarial source stays bounded', function () {
  this.timeout(300000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const order = 'app::function:src/client.ts#order -http_route-> svc::function:server.js#getOrder';
  const routeEdges = (r: any) => r.edges.filter((e: any) => e.relation === 'http_route').map((e: any) => `${e.source} -${e.relation}-> ${e.target}`);

  it('joins a file mounted under itself many times without multiplying prefixes (16 self-mounts held the loop 6.5 s)', async () => {
    const mounts = Array.from({ length: 16 }, (_, i) => `app.use('/p${i}', self);\n`).join('');
    const run = await federateTimed({ 'self.js': `import self from './self.js';\nconst app = express();\n${mounts}self.get('/r', handler);\nfunction handler() {}\n` });
    h = run.h;
    assert.ok(run.worst < 400, run.message);
    assert.ok(routeEdges(run.r).includes(order), JSON.stringify(run.r.edges));
  });

  it("reads a one-line file of runs of `$` and identifiers in linear time (48 KB ones held the loop 15 s)", async () => {
    const run = await federateTimed({ 'dollars.ts': `const a = '/x';\n${fill('$a', 48 << 10)}\n`, 'dollars2.ts': `app.use('/x', r);\n${fill('$', 48 << 10)}\n` });
    h = run.h;
    assert.ok(run.worst < 400, run.message);
    assert.ok(routeEdges(run.r).includes(order), JSON.stringify(run.r.edges));
  });

  it('reads decorators, annotations, mounts and imports with nothing after them in linear time (128 KB files held the loop up to 3.6 s each)', async () => {
    const run = await federateTimed(ADVERSARIAL);
    h = run.h;
    assert.ok(run.worst < 400, run.message);
    assert.ok(routeEdges(run.r).includes(order), JSON.stringify(run.r.edges));
  });

  it('ties 10,000 requests to 10,000 routes through an index, not every request against every route (~50 s)', async () => {
    const files: Record<string, string> = {};
    for (let f = 0; f < 100; f++) {
      const routes = Array.from({ length: 100 }, (_, i) => `app.get('/api/s${f}/r${i}/:id', h${i});`).join('\n');
      files[`routes/r${f}.js`] = `${Array.from({ length: 100 }, (_, i) => `function h${i}() {}`).join('\n')}\n${routes}\n`;
    }
    const { parent, app, svc } = repos(files);
    for (let f = 0; f < 100; f++) {
      const calls = Array.from({ length: 100 }, (_, i) => `export function c${i}(id) {\n  return fetch(\`/api/s${(f * 7) % 100}/r${i}/\${id}\`);\n}`).join('\n');
      write(app, { [`src/c${f}.ts`]: `${calls}\n` });
    }
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const started = performance.now();
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc', path: svc }], top_k: 5 })).json;
    const took = performance.now() - started;
    assert.equal(r.cross_edges?.http_route, 10_001, JSON.stringify(r).slice(0, 400));
    assert.ok(took < 20_000, `${Math.round(took)} ms`);
  });

  it('says how many routes and requests a file held past the per-file cap, and which files, instead of cutting them silently', async () => {
    const routes = Array.from({ length: 250 }, (_, i) => `app.get('/api/gen/r${i}/:id', h${i});`).join('\n');
    const { parent, app, svc } = repos({ 'routes/big.js': `${Array.from({ length: 250 }, (_, i) => `function h${i}() {}`).join('\n')}\n${routes}\n` });
    const calls = Array.from({ length: 210 }, (_, i) => `  fetch(\`/api/gen/r${i}/\${id}\`);`).join('\n');
    write(app, { 'src/many.ts': `export function many(id: string) {\n${calls}\n}\n` });
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc', path: svc }], top_k: 5 })).json;
    assert.deepEqual([r.routes_cut?.routes, r.routes_cut?.requests], [50, 10], JSON.stringify(r).slice(0, 600));
    assert.deepEqual([...r.routes_cut.files].sort(), ['app::src/many.ts', 'svc::routes/big.js']);
    assert.match(r.routes_cut.hint, /first 200 routes and 200 requests/);
  });
});

