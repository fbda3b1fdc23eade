import assert from 'node:assert/strict';
import type { FileExtraction } from '../../../../../plugins/graph/engine/extraction.ts';
import { extractFile } from '../../../../../plugins/graph/engine/parsers/index.ts';

const SOURCE = [
  'Intro with [guide](docs/guide.md) and `README.md`.',
  '',
  '# Engine',
  '',
  'The engine builds',
  'a [graph](graph.md).',
  '',
  '## Setup ##',
  '',
  'Run `npm ci`, then open `src/index.ts` and call `activate()` or `Graph.build`.',
  'See [API](../api.md#parsers "API docs"), [site](https://example.com) and [top](#engine).',
  '',
  '```md',
  '# Not a heading',
  '[not a link](nope.md) `notASymbol`',
  '```',
  '',
  '### Deep `config`',
  '',
  '[ref]: ./reference.md',
  '',
  '## Usage',
  '# Engine',
  '',
].join('\n');

describe('Markdown extractor', function () {
  let x: FileExtraction;

  before(async function () {
    x = await extractFile('docs/engine.md', SOURCE);
  });

  it('turns ATX headings into sections spanning to the next heading of the same or higher level, skipping fenced code', function () {
    assert.deepEqual(x.symbols, [
      { kind: 'section', name: 'Engine', qualifiedName: 'Engine', startLine: 3, endLine: 22, doc: 'The engine builds a graph.' },
      {
        kind: 'section',
        name: 'Setup',
        qualifiedName: 'Engine.Setup',
        startLine: 8,
        endLine: 21,
        parent: 'Engine',
        doc: 'Run `npm ci`, then open `src/index.ts` and call `activate()` or `Graph.build`. See API, site and top.',
      },
      { kind: 'section', name: 'Deep config', qualifiedName: 'Engine.Setup.Deep config', startLine: 18, endLine: 21, parent: 'Engine.Setup' },
      { kind: 'section', name: 'Usage', qualifiedName: 'Engine.Usage', startLine: 22, endLine: 22, parent: 'Engine' },
      { kind: 'section', name: 'Engine', qualifiedName: 'Engine#2', startLine: 23, endLine: 23 },
    ]);
  });

  it('reports relative links, code paths and code symbols with their section, ignoring URLs and anchors', function () {
    assert.deepEqual(x.docLinks, [
      { section: '', target: 'README.md', kind: 'code_path', line: 1 },
      { section: '', target: 'docs/guide.md', kind: 'link', line: 1 },
      { section: 'Engine', target: 'graph.md', kind: 'link', line: 6 },
      { section: 'Engine.Setup', target: 'src/index.ts', kind: 'code_path', line: 10 },
      { section: 'Engine.Setup', target: 'activate', kind: 'code_symbol', line: 10 },
      { section: 'Engine.Setup', target: 'Graph.build', kind: 'code_symbol', line: 10 },
      { section: 'Engine.Setup', target: '../api.md', kind: 'link', line: 11 },
      { section: 'Engine.Setup.Deep config', target: 'config', kind: 'code_symbol', line: 18 },
      { section: 'Engine.Setup.Deep config', target: './reference.md', kind: 'link', line: 20 },
    ]);
  });

  it('fills the rest of the extraction with empty lists and counts lines', function () {
    assert.equal(x.language, 'markdown');
    assert.equal(x.loc, 23);
    assert.equal(x.parseErrors, 0);
    assert.deepEqual([x.imports, x.calls, x.inherits, x.references], [[], [], [], []]);
  });

  // A changelog of underlined release headings read as one section from its first heading to the end
  // (express's History.md: lines 47–3921 under one ATX heading, with every release's links in it).
  it('reads setext headings (= level 1, - level 2), not lists, breaks or front matter', async function () {
    const text = [
      '---',
      'title: Front',
      '---',
      'Changes',
      '=======',
      '',
      'All notable changes.',
      '',
      '5.2.1 / 2025-12-01',
      '------------------',
      '',
      '* Fix `res.sendFile` ([#1](lib/response.js))',
      '',
      '- item',
      '---',
      '',
      'Two line',
      'paragraph',
      '---',
      '',
      '5.2.0 / 2025-11-01',
      '==================',
      '',
      '    indented',
      '    ---',
    ].join('\n');
    const md = await extractFile('History.md', text);
    assert.deepEqual(
      md.symbols.map((sym) => [sym.qualifiedName, sym.startLine, sym.endLine, sym.doc]),
      [
        ['Changes', 4, 20, 'All notable changes.'],
        ['Changes.5.2.1 / 2025-12-01', 9, 20, '* Fix `res.sendFile` (#1)'],
        ['5.2.0 / 2025-11-01', 21, 25, 'indented ---'],
      ],
    );
    assert.deepEqual(md.docLinks.map((l) => [l.section, l.target, l.line]), [
      ['Changes.5.2.1 / 2025-12-01', 'res.sendFile', 12],
      ['Changes.5.2.1 / 2025-12-01', 'lib/response.js', 12],
    ]);
  });

  it('reads a 100,000-character underline or list-like line in linear time', async function () {
    for (const line of ['-'.repeat(100_000) + 'x', '- '.repeat(50_000) + 'x', ' '.repeat(3) + '='.repeat(100_000) + ' \t'.repeat(1000) + 'x']) {
      const t0 = performance.now();
      await extractFile('long.md', `Title\n${line}\n`);
      assert.ok(performance.now() - t0 < 200, `${(performance.now() - t0).toFixed(0)} ms`);
    }
  });
});
