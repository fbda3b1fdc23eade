import assert from 'node:assert/strict';
import { detectLanguage, extractFile, extractorFor, initParsers } from '../../../../../plugins/graph/engine/parsers/index.ts';

describe('parser entry point', function () {
  it('detects languages by extension, case-insensitively, and rejects other files', function () {
    const cases: [string, string | null][] = [
      ['src/a.ts', 'typescript'],
      ['src/a.d.ts', 'typescript'],
      ['a.mts', 'typescript'],
      ['a.cts', 'typescript'],
      ['ui/App.tsx', 'tsx'],
      ['a.js', 'javascript'],
      ['a.mjs', 'javascript'],
      ['a.cjs', 'javascript'],
      ['a.jsx', 'javascript'],
      ['pkg/mod.py', 'python'],
      ['typeshed/os.pyi', 'python'],
      ['src/lib.rs', 'rust'],
      ['main.go', 'go'],
      ['src/Main.java', 'java'],
      ['README.md', 'markdown'],
      ['docs/GUIDE.MARKDOWN', 'markdown'],
      ['Makefile', null],
      ['a.c', null],
      ['.ts', null],
      ['dir.ts/file', null],
    ];
    for (const [path, language] of cases) assert.equal(detectLanguage(path), language, path);
  });

  it('loads each extractor once and reuses it', async function () {
    await initParsers(['python']);
    const first = await extractorFor('python');
    assert.equal(await extractorFor('python'), first);
  });

  it('extracts by extension, honours an explicit language and refuses unknown files', async function () {
    const fromExtension = await extractFile('a.go', 'package a\n\nfunc Run() {}\n');
    assert.deepEqual(fromExtension.symbols.map((s) => s.qualifiedName), ['Run']);
    const explicit = await extractFile('script', 'def run():\n    pass\n', 'python');
    assert.equal(explicit.language, 'python');
    assert.deepEqual(explicit.symbols.map((s) => s.qualifiedName), ['run']);
    await assert.rejects(extractFile('a.c', 'int main() {}'), /no parser/);
  });

  it('handles empty files, a byte-order mark, CRLF line ends and a missing final newline', async function () {
    const empty = await extractFile('empty.py', '');
    assert.deepEqual([empty.loc, empty.symbols, empty.parseErrors], [0, [], 0]);
    const bom = await extractFile('bom.ts', '\uFEFFexport function f(): void {}\r\nexport class C {}');
    assert.deepEqual(
      bom.symbols.map((s) => [s.qualifiedName, s.startLine, s.endLine]),
      [['f', 1, 1], ['C', 2, 2]],
    );
    assert.equal(bom.loc, 2);
    assert.equal(bom.parseErrors, 0);
  });

  it('counts ERROR and MISSING nodes of a broken file and still reports what parsed', async function () {
    const x = await extractFile('broken.py', 'def ok():\n    return 1\n\ndef broken(:\n    pass\n');
    assert.ok(x.parseErrors >= 1);
    assert.ok(x.symbols.some((s) => s.qualifiedName === 'ok'));
  });
});

describe('type-only imports', function () {
  before(() => initParsers());

  it('marks TypeScript imports that bring types only: import type, export type … from, every specifier typed', async () => {
    const ex = await (await extractorFor('typescript'))('a.ts', "import type { A } from './a';\nimport { type B, type C } from './b';\nimport { type D, E } from './d';\nexport type { F } from './f';\nimport G from './g';\n");
    assert.deepEqual(ex.imports.map((i) => [i.specifier, i.typeOnly === true]), [['./a', true], ['./b', true], ['./d', false], ['./f', true], ['./g', false]]);
  });

  it('marks Python imports under if TYPE_CHECKING: (typing. or bare), not those in its else branch or elsewhere', async () => {
    const src = 'import typing\nfrom typing import TYPE_CHECKING\nfrom .b import Run\nif typing.TYPE_CHECKING:\n    from ._models import Request\nelse:\n    from .c import C\nif TYPE_CHECKING:\n    import json\n\ndef f():\n    from .d import D\n';
    const ex = await (await extractorFor('python'))('a.py', src);
    assert.deepEqual(ex.imports.map((i) => [i.specifier, i.typeOnly === true]), [['typing', false], ['typing', false], ['.b', false], ['._models', true], ['.c', false], ['json', true], ['.d', false]]);
  });
});
