/**
 * The TS/JS checker pass seen through the MCP client: a small repository with a tsconfig whose
 * callers are known by construction (typed receivers, overloads, aliased/default/namespace imports,
 * re-exports, interface and abstract dispatch, functions as values, builtin-name collisions,
 * shadowing), then an edit and a restart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM'] }, include: ['src'] }),
  'src/request.ts': `export class HonoRequest {
  raw: Record<string, string> = {};
  header(name: string): string | undefined;
  header(): Record<string, string>;
  header(name?: string): unknown {
    return name ? this.raw[name] : this.raw;
  }
}

export interface Context {
  req: HonoRequest;
}

export interface Service {
  fresh(): number;
  stale: () => number;
}

export function createService(): Service {
  return {
    fresh() {
      return 1;
    },
    stale() {
      return 2;
    },
  };
}
`,
  'src/router.ts': `export interface Router {
  match(path: string): string | null;
}

class TrieNode {
  insert(path: string): string {
    return path;
  }
}

export class TrieRouter implements Router {
  #node = new TrieNode();
  match(path: string): string | null {
    return this.#node.insert(path);
  }
}

export abstract class Store {
  abstract save(key: string): void;
}

export class MemoryStore extends Store {
  save(key: string): void {
    void key;
  }
}

export class Task {
  abort(): void {}
}

export class Transformer {
  readonly #table = { a: this.visitA.bind(this) };
  visitA(n: number): number {
    return n;
  }
  run(n: number): number {
    return this.#table.a(n);
  }
}

export class Clock {
  constructor(private start = 0) {}
  get now(): number {
    return this.start;
  }
}
`,
  'src/serve-static.ts': `export function serveStatic(root: string): string {
  return root;
}

export function getPath(p: string): string {
  return p;
}

export function joinPath(a: string, b: string): string {
  return a + b;
}

export default function defaultHandler(): number {
  return 1;
}
`,
  'src/index.ts': `export { serveStatic, getPath } from './serve-static';
`,
  'src/auth.ts': `import type { Context } from './request';

export function auth(c: Context): string | undefined {
  return c.req.header('x');
}

export function jwt() {
  return (c: Context) => c.req.header('authorization');
}
`,
  'src/app.ts': `import { serveStatic as baseServeStatic, getPath } from './index';
import defaultHandler, { joinPath } from './serve-static';
import * as A from './auth';
import { auth } from './auth';
import type { Context, Service } from './request';
import { Clock, TrieRouter, type Router, type Store } from './router';

export function handle(c: Context, router: Router, store: Store, opts: { getPath?: (p: string) => string }) {
  c.req.header('accept');
  router.match('/x');
  store.save('k');
  const pick = opts.getPath ?? getPath;
  baseServeStatic('/public');
  defaultHandler();
  const controller = new AbortController();
  controller.abort();
  return pick;
}

export function useService(s: Service) {
  return s.fresh() + s.stale();
}

export function tick() {
  const clock = new Clock();
  return clock.now;
}

export function guarded(c: Context) {
  const auth = A.jwt();
  return auth(c);
}

export function viaCall() {
  return joinPath.call(null, 'a', 'b') + joinPath.apply(null, ['c', 'd']);
}

export function direct(c: Context) {
  return auth(c);
}

export const router = new TrieRouter();
`,
};

type Entry = { id: string; relation: string };

/** Direct dependents of a node by relation: `{ calls: [...], dispatches: [...], references: [...] }`. */
async function dependents(h: Harness, id: string): Promise<Record<string, string[]>> {
  const { json } = await h.call('impact', { agent_id: 'q', node_id: id, direction: 'reverse', max_depth: 1, detail: 'full' });
  assert.ok(Array.isArray(json.direct), JSON.stringify(json).slice(0, 300));
  const out: Record<string, string[]> = {};
  // impact joins the relations of one dependent with '+' (`calls+tests`).
  for (const e of json.direct as Entry[]) for (const rel of e.relation.split('+')) (out[rel] ??= []).push(e.id);
  for (const list of Object.values(out)) list.sort();
  return out;
}

describe('TS/JS call resolution by the type checker', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  let firstPass: unknown;
  before(async () => {
    ws = writeFixtureRepo(tempDir('m1nd-tsprecise-'), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false } } } });
  });
  after(() => h?.close());

  it('ingest waits for the checker pass and reports every TS file as precise', async () => {
    const { json } = await h.call('ingest', { agent_id: 'setup', path: ws });
    assert.equal(json.files.parsed, Object.keys(FILES).length - 1);
    assert.equal(json.type_checked.last_error, undefined);
    assert.deepEqual({ files: json.type_checked.files, precise: json.type_checked.precise, pending: json.type_checked.pending, failed: json.type_checked.failed }, { files: 6, precise: 6, pending: 0, failed: 0 });
    assert.ok(json.type_checked.last_pass.elapsed_ms > 0 && json.type_checked.last_pass.worker_rss_mb > 0);
    firstPass = json.type_checked.last_pass;
  });

  it('a full re-ingest of unchanged files keeps the stored checker results instead of checking again', async () => {
    const { json } = await h.call('ingest', { agent_id: 'setup', path: ws });
    assert.equal(json.type_checked.precise, 6);
    assert.deepEqual(json.type_checked.last_pass, firstPass, 'no new pass ran');
    assert.equal((await dependents(h, 'method:src/router.ts#Task.abort')).calls, undefined);
  });

  it('merges overload signatures into the implementation, whose callers come through typed receivers', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'method:src/request.ts#HonoRequest.header#2', direction: 'reverse' });
    assert.ok(JSON.stringify(json).includes('M1ND_ERR_GRAPH_NODE_NOT_FOUND'), 'no separate node per signature');
    const d = await dependents(h, 'method:src/request.ts#HonoRequest.header');
    assert.deepEqual(d.calls, ['function:src/app.ts#handle', 'function:src/auth.ts#auth', 'function:src/auth.ts#jwt']);
  });

  it('resolves a call on a private field of a typed class', async () => {
    const d = await dependents(h, 'method:src/router.ts#TrieNode.insert');
    assert.deepEqual(d.calls, ['method:src/router.ts#TrieRouter.match']);
  });

  it('links a call through an interface or abstract member to the member, and to implementations as dispatches', async () => {
    assert.deepEqual((await dependents(h, 'method:src/router.ts#Router.match')).calls, ['function:src/app.ts#handle']);
    const impl = await dependents(h, 'method:src/router.ts#TrieRouter.match');
    assert.deepEqual(impl.dispatches, ['function:src/app.ts#handle']);
    assert.equal(impl.calls, undefined);
    assert.deepEqual((await dependents(h, 'method:src/router.ts#Store.save')).calls, ['function:src/app.ts#handle']);
    assert.deepEqual((await dependents(h, 'method:src/router.ts#MemoryStore.save')).dispatches, ['function:src/app.ts#handle']);
  });

  it('links a call through an interface member to an object literal the annotation types as that interface', async () => {
    assert.deepEqual((await dependents(h, 'function:src/request.ts#createService.fresh')).dispatches, ['function:src/app.ts#useService']);
    assert.deepEqual((await dependents(h, 'function:src/request.ts#createService.stale')).dispatches, ['function:src/app.ts#useService']);
  });

  it('follows an aliased import through a re-exporting index, a default import and a namespace import', async () => {
    assert.deepEqual((await dependents(h, 'function:src/serve-static.ts#serveStatic')).calls, ['function:src/app.ts#handle']);
    assert.deepEqual((await dependents(h, 'function:src/serve-static.ts#defaultHandler')).calls, ['function:src/app.ts#handle']);
    assert.deepEqual((await dependents(h, 'function:src/auth.ts#jwt')).calls, ['function:src/app.ts#guarded']);
  });

  it('records a function used as a value as a reference, not a call', async () => {
    const d = await dependents(h, 'function:src/serve-static.ts#getPath');
    assert.deepEqual(d.references, ['function:src/app.ts#handle']);
    assert.equal(d.calls, undefined);
  });

  it('records f.call(…), f.apply(…) and this.m.bind(this) as calls of the function, as TypeScript\'s call hierarchy does', async () => {
    assert.deepEqual((await dependents(h, 'function:src/serve-static.ts#joinPath')).calls, ['function:src/app.ts#viaCall']);
    assert.deepEqual((await dependents(h, 'method:src/router.ts#Transformer.visitA')).calls, ['class:src/router.ts#Transformer']);
  });

  it('links no builtin method call to a workspace method of the same name, and no shadowed name to the import it shadows', async () => {
    assert.equal((await dependents(h, 'method:src/router.ts#Task.abort')).calls, undefined);
    assert.deepEqual((await dependents(h, 'function:src/auth.ts#auth')).calls, ['function:src/app.ts#direct']);
  });

  it('links `new` to the class', async () => {
    assert.deepEqual((await dependents(h, 'class:src/router.ts#TrieRouter')).calls, ['file:src/app.ts']);
  });

  it('links `new C()` to the constructor C declares, and reading a getter to the getter', async () => {
    assert.deepEqual((await dependents(h, 'method:src/router.ts#Clock.constructor')).calls, ['function:src/app.ts#tick']);
    assert.deepEqual((await dependents(h, 'method:src/router.ts#Clock.now')).calls, ['function:src/app.ts#tick']);
  });

  it('re-checks an edited file and the files importing it after an incremental ingest', async () => {
    // header moves down five lines and `direct` stops calling auth; its callers must follow.
    const req = path.join(ws, 'src/request.ts');
    fs.writeFileSync(req, '\n\n\n\n\n' + fs.readFileSync(req, 'utf8'));
    const app = path.join(ws, 'src/app.ts');
    fs.writeFileSync(app, fs.readFileSync(app, 'utf8').replace('return auth(c);\n}\n\nexport const', 'return c;\n}\n\nexport const'));
    const { json } = await h.call('ingest', { agent_id: 'setup', path: ws, incremental: true });
    assert.equal(json.type_checked.pending, 0);
    assert.ok(json.type_checked.last_pass.checked >= 3, `edited files and importers re-checked: ${json.type_checked.last_pass.checked}`);
    assert.deepEqual((await dependents(h, 'method:src/request.ts#HonoRequest.header')).calls, ['function:src/app.ts#handle', 'function:src/auth.ts#auth', 'function:src/auth.ts#jwt']);
    assert.equal((await dependents(h, 'function:src/auth.ts#auth')).calls, undefined);
  });

  it('loads stored checker edges after a restart without checking again', async () => {
    await h.close();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false } } } });
    const health = (await h.call('health', { agent_id: 'q' })).json;
    assert.deepEqual({ precise: health.type_checked.precise, pending: health.type_checked.pending, lastPass: health.type_checked.last_pass }, { precise: 6, pending: 0, lastPass: null });
    assert.deepEqual((await dependents(h, 'method:src/router.ts#MemoryStore.save')).dispatches, ['function:src/app.ts#handle']);
    assert.equal((await dependents(h, 'method:src/router.ts#Task.abort')).calls, undefined);
  });
});
