/**
 * A synthetic repository of any size for ingest benchmarks: Python, TypeScript, Go, Java, Rust and
 * Markdown files in packages of 50, each module importing a few earlier modules of its language
 * (mostly nearby ones, some far) and calling their functions and methods, with classes that extend
 * an imported class. Deterministic: the same `files` count gives the same tree, byte for byte.
 *
 *   node --import tsx/esm bench/synthetic-repo.ts <dir> [files=50000]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Share of the files per language (the rest of 1 after these is Markdown). */
const MIX = [
  ['python', 0.4],
  ['typescript', 0.3],
  ['go', 0.1],
  ['java', 0.08],
  ['rust', 0.07],
] as const;
const PER_PACKAGE = 50;

type Lang = (typeof MIX)[number][0] | 'markdown';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Indices of earlier modules a module imports: 1–4, mostly within the last 60, one in four anywhere. */
function dependencies(i: number, rnd: () => number): number[] {
  if (i === 0) return [];
  const n = 1 + Math.floor(rnd() * 4);
  const out = new Set<number>();
  for (let k = 0; k < n; k++) out.add(rnd() < 0.25 ? Math.floor(rnd() * i) : Math.max(0, i - 1 - Math.floor(rnd() * 60)));
  return [...out].sort((a, b) => a - b);
}

const pkg = (i: number): number => Math.floor(i / PER_PACKAGE);

function python(i: number, deps: number[]): string {
  const lines = deps.map((d) => `from pkg${pkg(d)}.mod_${d} import f_${d}_0, f_${d}_1, C${d}`);
  const base = deps.length ? `C${deps[deps.length - 1]}` : 'object';
  lines.push('', '', `class C${i}(${base}):`, `    """Module ${i}'s class."""`, '', `    def run(self, x):`, `        return self.step(x) + f_${i}_0(x)`, '');
  lines.push(`    def step(self, x):`, `        total = x`);
  for (const d of deps) lines.push(`        total += f_${d}_1(total)`);
  lines.push(`        return total`, '', '');
  for (let f = 0; f < 3; f++) {
    lines.push(`def f_${i}_${f}(x):`, `    if x > ${f + i}:`, `        return x - ${f}`);
    if (f > 0) lines.push(`    x = f_${i}_${f - 1}(x)`);
    for (const d of deps.slice(0, 2)) lines.push(`    x = f_${d}_0(x)`);
    lines.push(`    return C${i}().step(x)` + (f === 2 ? '' : ' if x else 0'), '', '');
  }
  return lines.join('\n');
}

function typescript(i: number, deps: number[]): string {
  const from = (d: number): string => (pkg(d) === pkg(i) ? `./mod_${d}` : `../pkg${pkg(d)}/mod_${d}`);
  const lines = deps.map((d) => `import { f${d}_0, f${d}_1, C${d} } from '${from(d)}';`);
  const base = deps.length ? ` extends C${deps[deps.length - 1]}` : '';
  lines.push('', `/** Module ${i}'s class. */`, `export class C${i}${base} {`, `  run(x: number): number {`, `    return this.step(x) + f${i}_0(x);`, `  }`, '');
  lines.push(`  step(x: number): number {`, `    let total = x;`);
  for (const d of deps) lines.push(`    total += f${d}_1(total);`);
  lines.push(`    return total;`, `  }`, `}`, '');
  for (let f = 0; f < 3; f++) {
    lines.push(`export function f${i}_${f}(x: number): number {`, `  if (x > ${f + i}) return x - ${f};`);
    if (f > 0) lines.push(`  x = f${i}_${f - 1}(x);`);
    for (const d of deps.slice(0, 2)) lines.push(`  x = f${d}_0(x);`);
    lines.push(`  return new C${i}().step(x);`, `}`, '');
  }
  return lines.join('\n');
}

function go(i: number, deps: number[]): string {
  const p = pkg(i);
  const other = [...new Set(deps.filter((d) => pkg(d) !== p).map(pkg))];
  const ref = (d: number, f: number): string => (pkg(d) === p ? `F${d}_${f}` : `pkg${pkg(d)}.F${d}_${f}`);
  const lines = [`package pkg${p}`, ''];
  if (other.length) lines.push('import (', ...other.map((q) => `\t"example.com/synthetic/go/pkg${q}"`), ')', '');
  lines.push(`// T${i} is module ${i}'s type.`, `type T${i} struct{ n int }`, '', `func (t *T${i}) Step(x int) int {`, `\ttotal := x + t.n`);
  for (const d of deps) lines.push(`\ttotal += ${ref(d, 1)}(total)`);
  lines.push(`\treturn total`, `}`, '');
  for (let f = 0; f < 3; f++) {
    lines.push(`func F${i}_${f}(x int) int {`, `\tif x > ${f + i} {`, `\t\treturn x - ${f}`, `\t}`);
    if (f > 0) lines.push(`\tx = F${i}_${f - 1}(x)`);
    for (const d of deps.slice(0, 2)) lines.push(`\tx = ${ref(d, 0)}(x)`);
    lines.push(`\tt := &T${i}{n: x}`, `\treturn t.Step(x)`, `}`, '');
  }
  return lines.join('\n');
}

function java(i: number, deps: number[]): string {
  const p = pkg(i);
  const lines = [`package com.synthetic.pkg${p};`, ''];
  for (const d of deps) if (pkg(d) !== p) lines.push(`import com.synthetic.pkg${pkg(d)}.C${d};`);
  const base = deps.length ? ` extends C${deps[deps.length - 1]}` : '';
  lines.push('', `/** Module ${i}'s class. */`, `public class C${i}${base} {`, `    public int step(int x) {`, `        int total = x;`);
  for (const d of deps) lines.push(`        total += C${d}.f1(total);`);
  lines.push(`        return total;`, `    }`, '');
  for (let f = 0; f < 3; f++) {
    lines.push(`    public static int f${f}(int x) {`, `        if (x > ${f + i}) return x - ${f};`);
    if (f > 0) lines.push(`        x = f${f - 1}(x);`);
    for (const d of deps.slice(0, 2)) lines.push(`        x = C${d}.f0(x);`);
    lines.push(`        return new C${i}().step(x);`, `    }`, '');
  }
  lines.push('}', '');
  return lines.join('\n');
}

function rust(i: number, deps: number[]): string {
  const lines = deps.map((d) => `use crate::pkg${pkg(d)}::mod_${d}::{f_${d}_0, f_${d}_1};`);
  lines.push('', `/// Module ${i}'s type.`, `pub struct S${i} {`, `    pub n: i64,`, `}`, '', `impl S${i} {`, `    pub fn step(&self, x: i64) -> i64 {`, `        let mut total = x + self.n;`);
  for (const d of deps) lines.push(`        total += f_${d}_1(total);`);
  lines.push(`        total`, `    }`, `}`, '');
  for (let f = 0; f < 3; f++) {
    lines.push(`pub fn f_${i}_${f}(x: i64) -> i64 {`, `    if x > ${f + i} {`, `        return x - ${f};`, `    }`);
    lines.push(f > 0 ? `    let x = f_${i}_${f - 1}(x);` : `    let x = x;`);
    for (const d of deps.slice(0, 2)) lines.push(`    let x = f_${d}_0(x);`);
    lines.push(`    S${i} { n: x }.step(x)`, `}`, '');
  }
  return lines.join('\n');
}

function markdown(i: number, deps: number[]): string {
  const lines = [`# Note ${i}`, '', `How module ${i} fits with the others.`, ''];
  for (const d of deps) lines.push(`## Depends on ${d}`, '', `See \`f_${d}_0\` and [note ${d}](../pkg${pkg(d)}/note_${d}.md).`, '');
  return lines.join('\n');
}

/** Where module `i` of a language goes, relative to the repository root. */
function pathOf(lang: Lang, i: number): string {
  const p = pkg(i);
  switch (lang) {
    case 'python':
      return `py/pkg${p}/mod_${i}.py`;
    case 'typescript':
      return `ts/src/pkg${p}/mod_${i}.ts`;
    case 'go':
      return `go/pkg${p}/mod_${i}.go`;
    case 'java':
      return `java/src/main/java/com/synthetic/pkg${p}/C${i}.java`;
    case 'rust':
      return `rust/src/pkg${p}/mod_${i}.rs`;
    case 'markdown':
      return `docs/pkg${p}/note_${i}.md`;
  }
}

const RENDER: Record<Lang, (i: number, deps: number[]) => string> = { python, typescript, go, java, rust, markdown };

/** Writes a synthetic repository of about `files` files under `dir`; returns the count per language and in all. */
export function writeSyntheticRepo(dir: string, files: number): { files: number; byLanguage: Record<string, number> } {
  const byLanguage: Record<string, number> = {};
  let written = 0;
  const write = (rel: string, text: string): void => {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
    written++;
  };
  const counts: [Lang, number][] = MIX.map(([lang, share]) => [lang, Math.floor(files * share)]);
  counts.push(['markdown', Math.max(0, files - counts.reduce((a, [, n]) => a + n, 0))]);
  for (const [lang, n] of counts) {
    const rnd = random(lang.length * 7919 + n);
    for (let i = 0; i < n; i++) write(pathOf(lang, i), RENDER[lang](i, lang === 'markdown' ? dependencies(i, rnd).slice(0, 2) : dependencies(i, rnd)));
    byLanguage[lang] = n;
    const packages = Math.ceil(n / PER_PACKAGE);
    // The glue each language needs to resolve the imports above.
    if (lang === 'python') for (let p = 0; p < packages; p++) write(`py/pkg${p}/__init__.py`, '');
    if (lang === 'go') write('go/go.mod', 'module example.com/synthetic/go\n\ngo 1.22\n');
    if (lang === 'rust' && n > 0) {
      write('rust/Cargo.toml', '[package]\nname = "synthetic"\nversion = "0.1.0"\nedition = "2021"\n');
      write('rust/src/lib.rs', Array.from({ length: packages }, (_, p) => `pub mod pkg${p};`).join('\n') + '\n');
      for (let p = 0; p < packages; p++) {
        const mods = Array.from({ length: Math.min(PER_PACKAGE, n - p * PER_PACKAGE) }, (_, k) => `pub mod mod_${p * PER_PACKAGE + k};`);
        write(`rust/src/pkg${p}/mod.rs`, mods.join('\n') + '\n');
      }
    }
    if (lang === 'typescript') write('ts/tsconfig.json', '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "ESNext" }, "include": ["src"] }\n');
  }
  return { files: written, byLanguage };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, n] = process.argv.slice(2);
  if (!dir) throw new Error('usage: bench/synthetic-repo.ts <dir> [files=50000]');
  const t = performance.now();
  const r = writeSyntheticRepo(dir, Number(n ?? 50_000));
  console.log(`synthetic repository: ${r.files} files in ${dir} (${JSON.stringify(r.byLanguage)}) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
