import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Language } from '../../../../../plugins/graph/engine/extraction.ts';
import { goSpec } from '../../../../../plugins/graph/engine/parsers/go.ts';
import { javaSpec } from '../../../../../plugins/graph/engine/parsers/java.ts';
import { pythonSpec } from '../../../../../plugins/graph/engine/parsers/python.ts';
import { queryPatterns } from '../../../../../plugins/graph/engine/parsers/query-chunks.ts';
import { createChunkedQueryExtractor, createQueryExtractor } from '../../../../../plugins/graph/engine/parsers/query-extractor.ts';
import type { QueryLanguageSpec } from '../../../../../plugins/graph/engine/parsers/query-spec.ts';
import { rustSpec } from '../../../../../plugins/graph/engine/parsers/rust.ts';
import { loadGrammar, treeSitterRuntime, type GrammarName } from '../../../../../plugins/graph/engine/parsers/tree-sitter.ts';
import { typescriptSpec } from '../../../../../plugins/graph/engine/parsers/typescript.ts';
import { threadMs } from '../../../../helpers/ping.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../../..');

/** Files under `dir` ending in `ext`, at most `limit`, in a stable order. */
function filesUnder(dir: string, ext: string, limit: number): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= limit) return;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(ext) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Texts whose facts depend on the order matches arrive in (found on real repositories). */
const SAMPLES: Record<'python' | 'rust' | 'go' | 'java', string> = {
  python: [
    'import os, sys as system',
    'from .base import Base, Mixin as M',
    'from typing import TypeVar, TypeAlias',
    'T = TypeVar("T", bound=Base)',
    'Handler: TypeAlias = "Callable[[int], str]"',
    'class Rule(Base, M):',
    '    """A rule."""',
    '    def __init__(self, endpoint: "t.Any | None", methods: set[str] | None = None, *args, **kw) -> None:',
    '        self.endpoint = endpoint',
    '        self.methods: set[str] = methods or set()',
    '        self.a, self.b = args',
    '        for k, v in kw.items():',
    '            self.extra = v',
    '        for i, m in enumerate(self.methods):',
    '            print(i, m.upper())',
    '    def match(self, path: str) -> "Rule | None":',
    '        if not isinstance(path, str):',
    '            return None',
    '        if isinstance(self.endpoint, (Rule, Base)):',
    '            self.endpoint.match(path)',
    '        elif issubclass(type(path), str):',
    '            pass',
    '        with open(path) as fh:',
    '            data = [line.strip() for line in fh]',
    '        return Rule(data, None)',
    'type Pair[K, V: Base] = tuple[K, V]',
    'def build[S](x: S) -> S:',
    '    try:',
    '        return x',
    '    except (OSError, ValueError) as err:',
    '        raise RuntimeError(err)',
  ].join('\n'),
  rust: [
    'use std::collections::{HashMap, HashSet};',
    'use crate::buf::{Buf, BufMut as Mut};',
    'pub trait Shape: Clone + Send { fn area(&self) -> f64; }',
    '#[derive(Clone)] pub struct Circle<T: Copy> { r: T, tags: HashSet<String> }',
    'impl<T: Copy + Into<f64>> Shape for Circle<T> { fn area(&self) -> f64 { let r: f64 = self.r.into(); r * r * 3.14 } }',
    'impl<T: Copy> Circle<T> { pub fn new(r: T) -> Self { Circle { r, tags: HashSet::new() } } }',
    'pub enum Kind { A(u8), B { x: i32 } }',
    'fn total<S: Shape>(xs: &[S], m: &mut HashMap<String, S>) -> f64 { for (k, v) in m.iter() { v.area(); } xs.iter().map(|s| s.area()).sum() }',
    'mod inner { pub(crate) fn helper() -> super::Kind { super::Kind::A(1) } }',
  ].join('\n'),
  go: [
    'package shapes',
    'import (\n\t"fmt"\n\tstr "strings"\n)',
    'type Shape interface { Area() float64; fmt.Stringer }',
    'type Circle struct { R float64; Base }',
    'type Base struct{ name string }',
    'func (c *Circle) Area() float64 { return c.R * c.R }',
    'func (c Circle) String() string { return fmt.Sprintf("%v", str.ToUpper(c.name)) }',
    'func Total(xs []Shape, m map[string]Shape) float64 {\n\tt := 0.0\n\tfor _, s := range xs { t += s.Area() }\n\tfor k, v := range m { fmt.Println(k, v.Area()) }\n\tvar c *Circle = &Circle{R: 1}\n\treturn t + c.Area()\n}',
  ].join('\n'),
  java: [
    'package shop;',
    'import java.util.*;',
    'import java.util.concurrent.LinkedBlockingDeque;',
    'public class Store<T extends Item> extends Base implements Runnable, Comparable<Store<T>> {',
    '  static class CustomSet extends HashSet<String> {}',
    '  interface CustomCollection extends Collection<String> {}',
    '  static class CustomQueue extends LinkedBlockingDeque<String> {}',
    '  interface CustomSetInterface extends Set<String>, Cloneable {}',
    '  static class CustomMap extends EnumMap<Kind, String> { CustomMap() { super(Kind.class); } }',
    '  private final List<T> items = new ArrayList<>();',
    '  /** Runs. */',
    '  @Override public void run() { for (T t : items) { t.price(); } Object o = items; if (o instanceof List<?> l) l.size(); }',
    '  public int compareTo(Store<T> other) { return Integer.compare(items.size(), ((Store<T>) other).items.size()); }',
    '  enum Kind { A, B }',
    '}',
  ].join('\n'),
};

/** Each language's query and the texts checked: samples, and real sources where the repository has them. */
function cases(): { language: Language; spec: QueryLanguageSpec; texts: [string, string][] }[] {
  const real = (dir: string, ext: string, limit: number): [string, string][] => filesUnder(join(ROOT, dir), ext, limit).map((f) => [f, readFileSync(f, 'utf8')]);
  return [
    { language: 'python', spec: pythonSpec, texts: [['sample.py', SAMPLES.python]] },
    { language: 'rust', spec: rustSpec, texts: [['sample.rs', SAMPLES.rust]] },
    { language: 'go', spec: goSpec, texts: [['sample.go', SAMPLES.go]] },
    { language: 'java', spec: javaSpec, texts: [['Store.java', SAMPLES.java]] },
    { language: 'typescript', spec: typescriptSpec('typescript'), texts: real('plugins/graph/engine', '.ts', 60) },
    { language: 'tsx', spec: typescriptSpec('tsx'), texts: real('ui', '.tsx', 20) },
    { language: 'javascript', spec: typescriptSpec('javascript'), texts: real('node_modules/@modelcontextprotocol/sdk/dist/esm/server', '.js', 25) },
  ];
}

/** An extraction with its objects' keys in one order, so two extractions compare by their facts. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));

describe('a query compiled in chunks', function () {
  this.timeout(120_000);
  const immediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('splits every language query into the patterns tree-sitter reads, each where tree-sitter says it starts', async () => {
    for (const { language, spec } of cases()) {
      const grammar = await loadGrammar(language as GrammarName);
      const whole = new (treeSitterRuntime().Query)(grammar, spec.query);
      const patterns = queryPatterns(spec.query);
      assert.equal(patterns.length, whole.patternCount(), language);
      patterns.forEach((p, i) => assert.ok(spec.query.slice(whole.startIndexForPattern(i)).startsWith(p.slice(0, 40)), `${language} pattern ${i}: ${p.slice(0, 60)}`));
    }
  });

  it('reads a string or comment holding a bracket as no pattern', () => {
    assert.deepEqual(queryPatterns('; a comment (\n((identifier) @x (#eq? @x "(")) @y\n[(a) (b)]* @z\n'), ['((identifier) @x (#eq? @x "(")) @y', '[(a) (b)]* @z']);
  });

  it('extracts the same facts as the whole query, in chunks of the default size and of one pattern each', async () => {
    for (const { language, spec, texts } of cases()) {
      const grammar = await loadGrammar(language as GrammarName);
      const whole = createQueryExtractor(spec, grammar);
      for (const size of [undefined, 1]) {
        const chunked = await createChunkedQueryExtractor(spec, grammar, immediate, size);
        assert.ok(texts.length > 0, language);
        for (const [path, text] of texts) assert.equal(canonical(chunked(path, text)), canonical(whole(path, text)), `${language} ${path} (chunks of ${size ?? 'default'})`);
      }
    }
  });

  it('holds the thread less than half as long per chunk as the whole Python query does in one call', async () => {
    const grammar = await loadGrammar('python');
    const gaps: number[] = [];
    // Thread CPU (Linux), so a busy machine descheduling the test does not count.
    let last = threadMs();
    const pause = (): Promise<void> => {
      gaps.push(threadMs() - last);
      return immediate().then(() => void (last = threadMs()));
    };
    await createChunkedQueryExtractor(pythonSpec, grammar, pause);
    assert.ok(gaps.length >= 10, `${gaps.length} pauses`);
    const t = threadMs();
    createQueryExtractor(pythonSpec, grammar);
    const wholeMs = threadMs() - t;
    assert.ok(Math.max(...gaps) < wholeMs / 2, `longest chunk ${Math.max(...gaps).toFixed(1)} ms, whole query ${wholeMs.toFixed(1)} ms`);
  });
});
