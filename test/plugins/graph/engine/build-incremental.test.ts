import { strict as assert } from 'node:assert';
import { GraphBuilder, type FileInput } from '../../../../plugins/graph/engine/build.ts';
import { RETURN_BINDING, type ExtractedBinding, type ExtractedCall, type ExtractedSymbol, type FileExtraction } from '../../../../plugins/graph/engine/extraction.ts';
import { extraction, sym } from './helpers.ts';

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PATHS = ['p/a.py', 'p/b.py', 'p/__init__.py', 'q/c.py', 'q/d.py', 'tests/test_a.py', 'docs/guide.md', 'src/x.ts', 'src/y.ts', 'src/index.ts'];
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'Klass', 'Other'];

function randomExtraction(path: string, r: () => number, keepImports?: FileExtraction['imports']): FileExtraction {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  if (path.endsWith('.md')) {
    return extraction(path, 'markdown', {
      symbols: [sym('section', 'Top', 1, 9)],
      docLinks: [
        { section: 'Top', target: pick(NAMES), kind: 'code_symbol', line: 2 },
        { section: 'Top', target: `../${pick(PATHS)}`, kind: 'link', line: 3 },
      ],
    });
  }
  const ts = path.endsWith('.ts');
  const symbols: ExtractedSymbol[] = [];
  const used = new Set<string>();
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const name = pick(NAMES);
    if (used.has(name)) continue;
    used.add(name);
    // Declared return types feed receiver types in other files.
    const returns = r() < 0.5 ? { returnType: pick(['Klass', 'Other', 'list[Klass]', 'str']) } : {};
    if (/^[A-Z]/.test(name)) {
      symbols.push(sym('class', name, i * 10 + 1, i * 10 + 9));
      symbols.push(sym('method', pick(NAMES).toLowerCase(), i * 10 + 2, i * 10 + 3, { parent: name, ...returns, ...(r() < 0.2 ? { property: true } : {}) }));
    } else symbols.push(sym('function', name, i * 10 + 1, i * 10 + 5, { exported: r() > 0.2, ...returns }));
  }
  const bindings: ExtractedBinding[] = [];
  for (const s of symbols) {
    if (s.kind === 'class' && r() < 0.6) bindings.push({ scope: s.qualifiedName, name: 'f', line: s.startLine + 1, source: 'field', ...(r() < 0.5 ? { type: pick(['Klass', 'Other']) } : { value: pick(['Klass()', 'alpha()', 'ns.Other()']) }) });
    if (s.kind !== 'class' && r() < 0.6) bindings.push({ scope: s.qualifiedName, name: 'v', line: s.startLine, source: 'assign', value: pick(['alpha()', 'Klass()', 'beta().f', 'ns.Other()', 'Other().gamma()', 'gamma']) });
    // What an unannotated function gives, inferred where it is called.
    if (s.kind !== 'class' && !s.returnType && r() < 0.4) bindings.push({ scope: s.qualifiedName, name: RETURN_BINDING, line: s.startLine + 1, source: 'assign', value: pick(['Klass()', 'v', 'alpha()', 'ns.Other()']) });
  }
  if (r() < 0.2) bindings.push({ scope: null, name: 'Alias', line: 1, source: 'alias', type: pick(['Klass', 'Other', 'list[Other]']) });
  const others = PATHS.filter((p) => p !== path && p.endsWith(ts ? '.ts' : '.py'));
  const imports: FileExtraction['imports'] = keepImports ? [...keepImports] : [];
  for (let i = 0; i < 2 && !keepImports; i++) {
    const t = pick(others);
    const spec = ts ? `./${t.split('/').pop()!.replace('.ts', '.js')}` : t.replace(/\.py$/, '').replace(/\//g, '.').replace(/\.__init__$/, '');
    const roll = r();
    if (roll < 0.15) imports.push({ specifier: spec, line: 1, names: ts ? ['*'] : [], alias: 'ns' });
    else imports.push({ specifier: spec, line: 1, names: roll > 0.55 ? [pick(NAMES)] : roll > 0.45 ? ['*'] : [] });
  }
  const calls: ExtractedCall[] = [];
  for (let i = 0; i < 4; i++) {
    const caller = symbols.length && r() > 0.2 ? pick(symbols).qualifiedName : null;
    const kind = r();
    const callee = pick([...NAMES, ...NAMES.map((x) => x.toLowerCase())]);
    if (kind < 0.2) calls.push({ caller, callee, receiver: ts ? 'this' : 'self', line: 2 });
    else if (kind < 0.45) calls.push({ caller, callee, receiver: pick(['p.a', 'q.c', 'ns', 'Klass', 'obj', 'Klass()', 'ns.Other', 'v', 'self.f', 'v.f', 'alpha()']), line: 2 });
    else calls.push({ caller, callee, line: 2 });
  }
  const classes = symbols.filter((s) => s.kind === 'class');
  return extraction(path, ts ? 'typescript' : 'python', {
    symbols,
    imports,
    calls,
    inherits: classes.length && r() > 0.5 ? [{ child: classes[0].qualifiedName, parent: pick(['Klass', 'Other']), kind: r() < 0.7 ? 'extends' : 'implements' }] : [],
    references: symbols.length ? [{ from: pick(symbols).qualifiedName, name: pick(['Klass', 'Other']), line: 3 }] : [],
    bindings,
  });
}

function snapshot(b: GraphBuilder): string[] {
  const g = b.graph;
  const out: string[] = [];
  for (let e = 0; e < g.edgeCapacity; e++) {
    const ed = g.edge(e);
    if (ed) out.push(`${ed.source} ${ed.relation} ${ed.target} ${ed.weight.toFixed(3)}`);
  }
  for (const [, n] of g.nodes()) out.push(`node ${n.id} ${n.startLine}-${n.endLine}`);
  return out.sort();
}

describe('GraphBuilder incremental patching', () => {
  // Edits that keep a file's imports change only its own facts (return types, fields, inferred
  // results, aliases, bases): the patch re-links only the files reading the facts that changed.
  for (const [seed, keep] of [[20240607, false], [2, false], [5, true], [6, true]] as const) it(`matches a fresh full build after each of 300 random edits, additions and deletions (seed ${seed}${keep ? ', edits keeping the imports' : ''})`, () => {
    const r = rng(seed);
    const state = new Map<string, FileExtraction>();
    const patched = new GraphBuilder();
    for (let step = 0; step < 300; step++) {
      const upsert: FileInput[] = [];
      const remove: string[] = [];
      const k = 1 + Math.floor(r() * 3);
      for (let i = 0; i < k; i++) {
        const path = PATHS[Math.floor(r() * PATHS.length)];
        if (upsert.some((u) => u.path === path) || remove.includes(path)) continue;
        if (state.has(path) && r() < 0.25) {
          remove.push(path);
          state.delete(path);
        } else {
          const ex = randomExtraction(path, r, keep ? state.get(path)?.imports : undefined);
          state.set(path, ex);
          upsert.push({ path, language: ex.language, extraction: ex });
        }
      }
      patched.apply({ upsert, remove, config: { goModules: [] } });
      const fresh = new GraphBuilder();
      fresh.apply({ upsert: [...state.values()].map((ex) => ({ path: ex.path, language: ex.language, extraction: ex })), remove: [], config: { goModules: [] } });
      assert.deepEqual(snapshot(patched), snapshot(fresh), `step ${step}`);
    }
  });
});

describe('GraphBuilder.stage (nodes added while an ingest still parses)', () => {
  it('builds the same graph when every file was staged, one at a time, before the apply', () => {
    const r = rng(7);
    for (let round = 0; round < 40; round++) {
      const inputs = PATHS.filter(() => r() < 0.8).map((path) => {
        const ex = randomExtraction(path, r);
        return { path, language: ex.language, extraction: ex } satisfies FileInput;
      });
      const whole = new GraphBuilder();
      const wholeReport = whole.apply({ upsert: inputs, remove: [], config: { goModules: [] } });
      const staged = new GraphBuilder();
      for (const input of inputs) staged.stage([input]);
      assert.ok(inputs.length === 0 || staged.graph.nodeCount > 0, 'staging adds the nodes before the apply');
      const stagedReport = staged.apply({ upsert: inputs, remove: [], config: { goModules: [] } });
      assert.deepEqual(snapshot(staged), snapshot(whole), `round ${round}`);
      assert.deepEqual(stagedReport, wholeReport, `round ${round}: the report counts the staged files`);
    }
  });

  it('patches an existing graph the same when the changed files were staged first', () => {
    const r = rng(11);
    const base = PATHS.map((path) => {
      const ex = randomExtraction(path, r);
      return { path, language: ex.language, extraction: ex } satisfies FileInput;
    });
    const changed = PATHS.filter(() => r() < 0.4).map((path) => {
      const ex = randomExtraction(path, r);
      return { path, language: ex.language, extraction: ex } satisfies FileInput;
    });
    const direct = new GraphBuilder();
    direct.apply({ upsert: base, remove: [] });
    direct.apply({ upsert: changed, remove: [] });
    const staged = new GraphBuilder();
    staged.apply({ upsert: base, remove: [] });
    staged.stage(changed);
    staged.apply({ upsert: changed, remove: [] });
    assert.deepEqual(snapshot(staged), snapshot(direct));
    staged.stage(changed.slice(0, 1));
    assert.throws(() => staged.apply({ upsert: changed.slice(0, 1), remove: [PATHS[0]] }), /must not remove/);
  });
});
