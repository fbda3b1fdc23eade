import assert from 'node:assert/strict';
import { readMentions } from '../../../plugins/documents/mentions.ts';
import { rstToMarkdown } from '../../../plugins/documents/rst.ts';

describe('document mentions', () => {
  it('reads code spans as paths, commands or symbols, and shell lines in fences', () => {
    const m = readMentions('# Build\n\nRun `npm run build` then edit `src/a.ts` and `Cart.checkout()`.\n\n```sh\n$ make lint\nnot a command\n```\n');
    assert.deepEqual(
      m.map((x) => [x.kind, x.text, x.evidence, x.line, x.section]),
      [
        ['command', 'npm run build', 'code_span', 3, 'Build'],
        ['path', 'src/a.ts', 'code_span', 3, 'Build'],
        ['symbol', 'Cart.checkout', 'code_span', 3, 'Build'],
        ['command', 'make lint', 'shell', 6, 'Build'],
      ],
    );
  });

  it('reads prose calls, paths and code-shaped words but not English, and undoes converter escapes', () => {
    const m = readMentions('The parse\\_config\\(\\) helper in lib/conf.py calls loadFile() and retryPolicy; make sure the Server is up.');
    // "make sure" is read as a possible command; bindings keep it only if a Makefile target resolves.
    assert.deepEqual(m.map((x) => [x.kind, x.text, x.evidence]), [
      ['command', 'make sure', 'prose_command'],
      ['path', 'lib/conf.py', 'path'],
      ['symbol', 'parse_config', 'call'],
      ['symbol', 'loadFile', 'call'],
      ['symbol', 'retryPolicy', 'identifier'],
    ]);
  });
});

describe('document mentions in code spans that call or name syntax', () => {
  it('reads a call with arguments as its callee when code-shaped or dotted, and no keyword or plain builtin', () => {
    const m = readMentions('Use `AsyncClient.send(request, ...)`, `httpx.get(url, timeout=f(2))`, `parse_config(path)`, `len(x)`, `async` and `await`.');
    assert.deepEqual(m.map((x) => [x.kind, x.text, x.evidence]), [
      ['symbol', 'AsyncClient.send', 'code_span'],
      ['symbol', 'httpx.get', 'code_span'],
      ['symbol', 'parse_config', 'code_span'],
    ]);
  });
});

describe('reStructuredText to Markdown', () => {
  it('turns adorned titles into levels by first use, roles and literals into code spans, and :: blocks into fences', () => {
    const md = rstToMarkdown('=====\nGuide\n=====\n\nIntro\n-----\n\nCall :func:`retry` or ``backoff(2)``.\n\nExample::\n\n    $ npm test\n\nDone\n----\n');
    assert.equal(md, '# Guide\n\n## Intro\n\nCall `retry` or `backoff(2)`.\n\nExample:\n```\n\n$ npm test\n\n```\n## Done\n');
  });
});

describe('document mentions of a symbol in its file', () => {
  it('reads path#name, path:name and path::name as one symbol mention, a document or line anchor as a path, and Makefile as a path', () => {
    const m = readMentions('Use `src/a.ts#helper`, `./src/b.ts:Cart.checkout()`, `tests/t.py::test_x` and `Makefile`; see docs/guide.md#setup and src/c.ts#parseConfig() here.\nLines: `src/d.ts#L4-L9` and src/e.ts#L12.');
    assert.deepEqual(m.map((x) => [x.kind, x.text, x.evidence]), [
      ['symbol', 'src/a.ts#helper', 'code_span'],
      ['symbol', 'src/b.ts:Cart.checkout', 'code_span'],
      ['symbol', 'tests/t.py::test_x', 'code_span'],
      ['path', 'Makefile', 'code_span'],
      ['path', 'docs/guide.md', 'path'],
      ['symbol', 'src/c.ts#parseConfig', 'path'],
      ['path', 'src/d.ts', 'code_span'],
      ['path', 'src/e.ts', 'path'],
    ]);
  });

  it('reads a link to a workspace file and an MDX import as paths, and lines made to make their patterns backtrack in linear time', () => {
    const m = readMentions('See [the guide](./docs/guide.md "Guide") and [a page](https://example.com/x).\nimport { A } from \'./a.js\'\nimport {\n  B,\n} from \'../b.mdx\'\nimport pkg from \'react\'\n');
    assert.deepEqual(m.filter((x) => x.kind === 'path').map((x) => [x.text, x.evidence]), [['docs/guide.md', 'link'], ['a.js', 'link'], ['../b.mdx', 'link']]);
    // Each took 1.3-1.4 s at 40,000 characters (quadratic) before the pattern was made linear; ~10 ms now.
    // An import line took 5 minutes at 10,000 spaces (`import` + spaces + `x`), an import's closing line 58 ms.
    const lines = ['[a](' + ' '.repeat(200_000) + 'x', '['.repeat(200_000), '[a](b'.repeat(40_000), '[a](x "'.repeat(30_000)];
    lines.push('import' + ' '.repeat(200_000) + 'x', 'import ' + 'a '.repeat(100_000), 'import {\n' + ' '.repeat(200_000) + 'x');
    for (const line of lines) {
      const t = performance.now();
      readMentions(line);
      const ms = performance.now() - t;
      assert.ok(ms < 1000, `${JSON.stringify(line.slice(0, 12))}… (${line.length} characters) took ${ms.toFixed(0)} ms`);
    }
  });
});
