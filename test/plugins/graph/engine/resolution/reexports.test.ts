import { strict as assert } from 'node:assert';
import type { Harness } from '../../../../helpers/mcp.ts';
import { callersOf, ingestedRepo } from './callers.ts';

// Calls through re-exports: renamed (`export { a as b } from`), plain, wildcard (TS and a Python package).
const FILES: Record<string, string> = {
  'src/lib/index.ts': `export { real as pub, other } from './impl';
export * from './stars';
export { inner as deep } from './middle';
`,
  'src/lib/impl.ts': `export function real(): number {
  return 1;
}
export function other(): number {
  return 2;
}
export function pub(): number {
  return 3;
}
`,
  'src/lib/stars.ts': `export function starred(): number {
  return 4;
}
`,
  'src/lib/middle.ts': `export { core as inner } from './core';
`,
  'src/lib/core.ts': `export function core(): number {
  return 5;
}
`,
  'src/app.ts': `import { pub, other, starred, deep } from './lib';

export function usePub(): number {
  return pub();
}
export function useOther(): number {
  return other();
}
export function useStarred(): number {
  return starred();
}
export function useDeep(): number {
  return deep();
}
`,
  'py/pkg/__init__.py': `from .stars import *
from .impl import helper
`,
  'py/pkg/impl.py': `def helper():
    return 1
`,
  'py/pkg/stars.py': `def starred():
    return 2
`,
  'py/main.py': `from pkg import helper, starred


def use_helper():
    return helper()


def use_starred():
    return starred()
`,
};

describe('call resolution through re-exports', function () {
  this.timeout(120_000);
  let h: Harness;
  before(async () => {
    h = await ingestedRepo(FILES);
  });
  after(async () => {
    await h.close();
  });

  it('follows a renamed re-export to the original name, not to a same-named export', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/lib/impl.ts#real'), ['function:src/app.ts#usePub']);
    assert.deepEqual(await callersOf(h, 'function:src/lib/impl.ts#pub'), []);
    assert.deepEqual(await callersOf(h, 'function:src/lib/impl.ts#other'), ['function:src/app.ts#useOther']);
  });

  it('follows a wildcard re-export', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/lib/stars.ts#starred'), ['function:src/app.ts#useStarred']);
  });

  it('follows renames two files deep', async () => {
    assert.deepEqual(await callersOf(h, 'function:src/lib/core.ts#core'), ['function:src/app.ts#useDeep']);
  });

  it('follows a Python package re-export, plain and wildcard', async () => {
    assert.deepEqual(await callersOf(h, 'function:py/pkg/impl.py#helper'), ['function:py/main.py#use_helper']);
    assert.deepEqual(await callersOf(h, 'function:py/pkg/stars.py#starred'), ['function:py/main.py#use_starred']);
  });
});
