import assert from 'node:assert/strict';
import { sketchJob, unpackSketches } from '../../../plugins/structure/cold-shapes-work.ts';
import { lexicalShapes, rangeShape } from '../../../plugins/structure/lexical-shapes.ts';
import { lexFile } from '../../../plugins/structure/lexer.ts';
import { oneHashSignature } from '../../../plugins/structure/minhash.ts';
import { jaccard } from '../../../plugins/structure/shapes.ts';

const PY_A = `def retry_fetch(url, attempts):
    # first copy
    last = None
    for i in range(attempts):
        try:
            return download(url, timeout=5 * (i + 1), note=f"try {i}")
        except IOError as err:
            last = err
    raise RuntimeError(last)
`;
// Every name, literal and comment changed; the same code otherwise.
const PY_B = `def fetch_again(address, tries):
    previous = None
    for n in range(tries):
        try:
            return download(address, timeout=7 * (n + 2), note=f"attempt {n}")
        except IOError as problem:  # renamed
            previous = problem
    raise RuntimeError(previous)
`;
// One statement moved out of the loop: no longer the same indentation.
const PY_C = `def fetch_again(address, tries):
    previous = None
    for n in range(tries):
        try:
            return download(address, timeout=7 * (n + 2), note=f"attempt {n}")
        except IOError as problem:
            pass
    previous = problem
    raise RuntimeError(previous)
`;

describe('lexical shapes (twins without a parse)', () => {
  it('gives renamed copies with other literals and comments the same shingles, and tells a changed block apart', () => {
    const [a] = lexicalShapes('python', PY_A, [[1, 9]]);
    const [b] = lexicalShapes('python', PY_B, [[1, 8]]);
    const [c] = lexicalShapes('python', PY_C, [[1, 9]]);
    assert.deepEqual(Array.from(a.shingles), Array.from(b.shingles));
    assert.equal(a.tokens, b.tokens);
    assert.ok(jaccard(a.shingles, c.shingles) < 1 && jaccard(a.shingles, c.shingles) > 0.5, String(jaccard(a.shingles, c.shingles)));
  });

  it('reads the expressions inside templates and f-strings, a regular expression as one literal, and block comments as nothing', () => {
    const one = lexFile('typescript', 'const x = `a ${f(y)} b`;\nconst r = s.replace(/[/]+/g, "") / 2; /* a\ncomment */ go();\n');
    // const x = STR f ( y ) | const r = s replace ( STR STR ) / NUM | go ( )
    assert.equal(one.count, 8 + 11 + 3);
    assert.deepEqual(Array.from(one.lineStart), [0, 8, 19, 22, 22]);
    const renamed = lexFile('typescript', 'const q = `zz ${g(w)}`;\n');
    assert.deepEqual(Array.from(renamed.shingles), Array.from(one.shingles.slice(0, renamed.shingles.length)));
    const plain = lexFile('typescript', 'const x = `a ${f(y, z)} b`;\n');
    assert.notDeepEqual(Array.from(plain.shingles), Array.from(one.shingles.slice(0, plain.shingles.length)), 'the template\'s expression counts');
    const py = lexFile('python', 'x = f"{a + b!r:>{width}} {{literal}}"\n');
    // LINE ID = STR ID + ID ! ID > { ID } (the nested format field's braces are brackets; {{ is text)
    assert.equal(py.count, 13);
  });

  it('lexes UTF-8 bytes as the decoded text: a non-ASCII name is one name, a non-ASCII literal one literal, a BOM one name', () => {
    const same = (language: 'python' | 'typescript' | 'rust', text: string, ascii: string) => {
      const a = lexFile(language, new TextEncoder().encode(text));
      const b = lexFile(language, ascii);
      assert.equal(a.count, b.count, text);
      assert.deepEqual(Array.from(a.shingles), Array.from(b.shingles), text);
      assert.deepEqual(Array.from(a.lineStart), Array.from(b.lineStart), text);
    };
    same('python', 'def naïve(café, x):\n    return f"{café} ü" + \'日本\' + 1\n', 'def naive(cafe, x):\n    return f"{cafe} u" + \'ab\' + 1\n');
    same('typescript', '\uFEFFconst é = `ü ${ä(1)}`; // ö\nlet s = "ß" / 2;\n', 'xconst e = `u ${a(1)}`; // o\nlet s = "s" / 2;\n');
    same('rust', "fn f<'a>(x: &'a str) -> char { let c = 'é'; 'ü' }\n", "fn f<'a>(x: &'a str) -> char { let c = 'e'; 'u' }\n");
    // A keyword is one by its bytes only: a longer or non-ASCII look-alike is a name.
    assert.notDeepEqual(Array.from(lexFile('python', 'class A:\n    pass\n').shingles), Array.from(lexFile('python', 'classé A:\n    pass\n').shingles));
  });

  it('takes a symbol\'s tokens by its lines: a nested range is part of its parent\'s', () => {
    const file = lexFile('python', 'class A:\n    def f(self):\n        return 1\n\n    def g(self, x):\n        return x + 1\n');
    const whole = rangeShape(file, 1, 6);
    const f = rangeShape(file, 2, 3);
    const g = rangeShape(file, 5, 6);
    assert.ok(f.tokens > 0 && g.tokens > f.tokens && whole.tokens > f.tokens + g.tokens);
    assert.equal(rangeShape(file, 40, 50).tokens, 0);
  });

  it('packs a batch\'s sketches into one array that reads back as each symbol\'s shape and signature (unreadable files, short symbols)', () => {
    const bytes = new TextEncoder().encode(PY_A);
    const packed = sketchJob(
      [
        { path: 'a.py', language: 'python', ranges: [1, 9, 3, 4] },
        { path: 'gone.py', language: 'python', ranges: [1, 2] },
        { path: 'b.py', language: 'python', ranges: [1, 8] },
        { path: 'c.py', language: 'python', ranges: [] },
      ],
      [bytes, null, PY_B, ''],
    );
    const back = unpackSketches(packed);
    const plain = (list: any[] | null) => list && list.map((s) => ({ tokens: s.tokens, shingles: Array.from(s.shingles), minhash: s.minhash && Array.from(s.minhash) }));
    const expected = (text: string, ranges: [number, number][]) =>
      lexicalShapes('python', text, ranges).map((s) => (s.tokens >= 15 ? { ...s, minhash: oneHashSignature(s.shingles) } : { tokens: s.tokens, shingles: new Int32Array(0) }));
    assert.deepEqual(back.map(plain), [expected(PY_A, [[1, 9], [3, 4]]), null, expected(PY_B, [[1, 8]]), []].map(plain));
    assert.equal(back[0]![0].minhash!.length, 32);
    assert.ok(back[0]![1].tokens > 0 && back[0]![1].tokens < 15);
    assert.equal(back[0]![1].minhash, undefined, 'a sketch under the least tokens has no signature');
    assert.equal(back[0]![1].shingles.length, 0, 'nor shingles');
  });
});

describe('the cold twins jobs (cold-shapes-work.ts)', () => {
  it('parses a Python file on a method\'s line range alone and gives it the same AST shape as the whole file\'s parse', async () => {
    const text = `import os\n\n# ünïcode: ranges are character offsets\nclass A:\n    x = [1, 2, 3]\n\n    def f(self, y):\n        if y:\n            return [v * 2 for v in y if v]\n        raise ValueError(f"bad {y}")\n\n    def g(self):\n        pass\n\n\ndef h(a):\n    return os.path.join(a, "b")\n`;
    const { shapesJob, unpackDefinitions } = await import('../../../plugins/structure/cold-shapes-work.ts');
    const whole = unpackDefinitions(await shapesJob([{ path: 'a.py', language: 'python' }], [text]))[0]!;
    const part = unpackDefinitions(await shapesJob([{ path: 'a.py', language: 'python', ranges: [7, 10, 16, 17] }], [text]))[0]!;
    const plain = (d: any) => ({ row: d.row, endRow: d.endRow, tokens: d.tokens, shingles: Array.from(d.shingles) });
    const f = whole.find((d) => d.row === 6)!;
    const h = whole.find((d) => d.row === 15)!;
    assert.ok(f && h && f.tokens > 20);
    assert.deepEqual(part.map(plain), [f, h].map(plain), 'only the two ranges parsed, their shapes as in the whole file');
  });
});
