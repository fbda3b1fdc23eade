/**
 * A facts worker's parser made fast before a cold `twins` needs it. V8 compiles WebAssembly in two
 * tiers: a quick baseline first, then an optimised compile of each function once it has run enough.
 * Tree-sitter's parse loop is one large function (its optimised compile took ~355 ms on a helper
 * thread): left to the real files, the first several hundred milliseconds of a cold `twins`' parse
 * ran on baseline code. A parse of a sample of about 32 KB, while the worker is still sketching,
 * makes the runtime (shared by all grammars and by the process's workers) and the grammar's lexer
 * hot, so their optimised code is compiled meanwhile and ready when the candidates' files come.
 */
import type { Language } from '../graph/api.ts';
import { parseCode } from './code-trees.ts';

const PYTHON = `import os
# a comment
@decorate(1)
class Sample(Base):
    """A docstring."""
    size: int = 0x1F + 1.5e3

    def method(self, a, *rest, **options):
        text = f"x{a!r:>{rest}} {{literal}}" + rb'raw' + u"text"
        if a and not rest or options[1:2] >= 3:
            return [i ** 2 for i in range(10) if i % 2] + list({k: v for k, v in options.items()})
        elif a is None:
            raise ValueError(a)
        while True:
            try:
                yield from other(lambda q: q @ a)
            except (KeyError, OSError) as e:
                pass
            finally:
                break
        with open(a) as handle:
            handle.write(str(rest))
        return a if rest else options


def other(x, limit=10):
    total = x << 2 | 3 & ~4 ^ 5
    for item in range(limit):
        total += item * 2 - 1
    assert total != 0, "never"
    return total
`;

const CLIKE = `import { a } from './b';
// a comment
export class Sample extends Base {
  field = 1;
  method(x, ...rest) {
    const r = \`t \${x + 1} e\`;
    if (x === 1 && rest !== 2 || !r) return x?.y ?? 0x1f;
    for (let i = 0; i < 10; i++) { x += i >>> 1; }
    try { other(x); } catch (e) { throw new Error(String(e)); }
    return async () => { await x; };
  }
}
function other(a, b = 2) { const o = { a, b: [1, 2] }; return o.a / 2 + b; }
`;

const SAMPLE_CHARS = 32 * 1024;
const warmed = new Set<Language>();

/** The sample parsed for `language`: valid Python, or code valid in JavaScript and TypeScript (other grammars read it with some errors: their parse loop still runs). */
export function parserSample(language: Language): string {
  const unit = language === 'python' ? PYTHON : CLIKE;
  return unit.repeat(Math.ceil(SAMPLE_CHARS / unit.length));
}

/** Loads `language`'s grammar and parses its sample once (later calls return at once); a grammar that fails to load is left to its first real use. */
export async function warmParser(language: Language): Promise<void> {
  if (warmed.has(language)) return;
  warmed.add(language);
  const parsed = await parseCode(language, parserSample(language));
  parsed?.done();
}
