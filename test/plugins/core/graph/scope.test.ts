import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from '../analysis/analysis-fixture.ts';

/** Two folders whose names share a prefix (`src`, `src2`) and a third, each with a function about headers. */
const FILES: Record<string, string> = {
  'src/headers.ts': `/** Parses one header line. */
export function parseHeader(line: string): string[] {
  return line.split(':');
}
`,
  'src2/headers.ts': `/** Parses one header line, version two. */
export function parseHeaderTwo(line: string): string[] {
  return line.split('=');
}
`,
  'lib/headers.ts': `import { parseHeader } from '../src/headers.ts';

/** Parses many header lines. */
export function parseHeaders(text: string): string[][] {
  return text.split('\\n').map(parseHeader);
}
`,
};

/** The workspace-relative paths a verb's answer names, whatever its shape. */
function pathsOf(verb: string, json: any): string[] {
  switch (verb) {
    case 'seek':
      return json.results.map((r: { path: string }) => r.path);
    case 'focus':
      return json.selected.map((r: { path: string }) => r.path);
    case 'search':
      return json.matches.map((r: { path: string }) => r.path);
    case 'glob':
      return json.paths;
    case 'metrics':
      return json.nodes.map((r: { path: string }) => r.path);
    case 'panoramic':
      return json.files.map((r: { file: string }) => r.file);
    default:
      throw new Error(verb);
  }
}

const CALLS: Record<string, Record<string, unknown>> = {
  seek: { query: 'parse header line' },
  focus: { goal: 'parse header line' },
  search: { query: 'split' },
  glob: { pattern: '**/*.ts' },
  metrics: {},
  panoramic: {},
};

describe('the scope argument, read the same way by every verb', function () {
  this.timeout(120_000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture({ files: FILES, typeCheck: false });
  });
  after(() => h.close());

  for (const verb of Object.keys(CALLS)) {
    it(`${verb}: "src", "./src/", "src/" and the workspace's absolute src folder keep src only (not src2); "." and "./" keep everything`, async () => {
      for (const scope of ['src', './src/', 'src/', join(h.workspace, 'src')]) {
        const r = await h.call(verb, { agent_id: 'a', ...CALLS[verb], scope });
        assert.notEqual(r.result.isError, true, `${verb} ${scope}: ${JSON.stringify(r.json).slice(0, 300)}`);
        const paths = pathsOf(verb, r.json);
        assert.ok(paths.length > 0, `${verb} ${scope}: nothing kept`);
        for (const p of paths) assert.ok(p.startsWith('src/'), `${verb} ${scope}: ${p} is outside src`);
      }
      for (const scope of ['.', './', h.workspace]) {
        const r = await h.call(verb, { agent_id: 'a', ...CALLS[verb], scope });
        const paths = new Set(pathsOf(verb, r.json).map((p) => p.split('/')[0]));
        assert.ok(paths.has('src2') || paths.has('lib'), `${verb} ${scope}: only ${[...paths]}`);
      }
    });
  }

  it('refuses a scope naming nothing (a mistyped folder) with the folders it could be, for every verb; a folder on disk with no code gives an empty answer', async () => {
    for (const verb of [...Object.keys(CALLS), 'external_references', 'diagram']) {
      const r = await h.call(verb, { agent_id: 'a', ...(CALLS[verb] ?? {}), scope: 'srcc' });
      assert.equal(r.result.isError, true, `${verb}: ${JSON.stringify(r.json).slice(0, 300)}`);
      assert.equal(r.json.error.code, 'M1ND_ERR_PATH_NOT_FOUND', verb);
      assert.match(r.json.error.message, /scope "srcc" names no folder or file/, verb);
      assert.match(r.json.error.hint, /"src", "src2", "lib"|"lib", "src", "src2"|"src"/, verb);
    }
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(h.workspace, 'assets'));
    const empty = await h.call('glob', { agent_id: 'a', pattern: '**/*', scope: 'assets' });
    assert.notEqual(empty.result.isError, true, JSON.stringify(empty.json).slice(0, 300));
    assert.deepEqual(empty.json.paths, []);
  });

  it('refuses a scope outside the workspace, naming the parameter', async () => {
    for (const scope of ['../elsewhere', '/etc']) {
      const r = await h.call('seek', { agent_id: 'a', query: 'parse header', scope });
      assert.equal(r.result.isError, true);
      assert.match(r.json.error.message, /scope/);
    }
  });
});
