import { strict as assert } from 'node:assert';
import type { Harness } from '../../../../helpers/mcp.ts';
import { callersOf, ingestedRepo } from './callers.ts';

// The name-based resolver is the TS/JS fallback: these are the false edges it must not make.
const FILES: Record<string, string> = {
  'src/router.ts': `export class Router {
  search(path: string): string {
    return path;
  }

  abort(): void {}

  match(path: string): boolean {
    return path === '/';
  }
}
`,
  'src/auth.ts': `export function auth(token: string): boolean {
  return token !== '';
}
`,
  'src/render.ts': `export function renderToString(node: unknown): string {
  return String(node);
}
`,
  'src/static.ts': `export function serveStatic(root: string): string {
  return root;
}
`,
  'src/app.ts': `import { renderToString } from 'react-dom/server';
import { serveStatic as baseServeStatic } from './static.ts';
import { Router } from './router.ts';

declare function jwt(): (token: string) => boolean;

export function page(text: string, controller: AbortController): string {
  const found = text.search(/x/);
  controller.abort();
  return renderToString(found);
}

export function guard(c: string): boolean {
  const auth = jwt();
  return auth(c);
}

export function serve(): string {
  return baseServeStatic('public');
}

export function route(r: Router): boolean {
  r.abort();
  return r.match('/');
}
`,
};

describe('TS/JS name-based call resolution', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await ingestedRepo(FILES);
  });
  after(async () => {
    await h?.close();
  });

  it('does not link str.search() or AbortController.abort() to same-named workspace methods, but links a typed Router receiver', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/router.ts#Router.search'), []);
    assert.deepEqual(await callersOf(h, 'method:src/router.ts#Router.abort'), ['function:src/app.ts#route']);
    assert.deepEqual(await callersOf(h, 'method:src/router.ts#Router.match'), ['function:src/app.ts#route']);
  });

  it('trusts an import from an outside package over a workspace function of the same name', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/render.ts#renderToString'), []);
  });

  it('lets a local constant shadow a workspace function', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/auth.ts#auth'), []);
  });

  it('links a call through an aliased import to the declared function', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/static.ts#serveStatic'), ['function:src/app.ts#serve']);
  });
});
