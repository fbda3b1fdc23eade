/**
 * Regenerates the ground truth of the quality benchmark (bench/quality/truth/<id>.json) with each
 * language's own tooling: the TypeScript LanguageService (for JavaScript too), pyright (LSP call hierarchy), go/types, javac,
 * rustc's save-analysis. Needs the repositories' mirrors (see repos.ts) and, for Go, a Go toolchain on
 * PATH; for Rust, rustc 1.63–1.67 (Debian bookworm's `rustc`; M1ND_TRUTH_RUSTC names another).
 *
 *   node --import tsx/esm bench/quality/truth.ts [id ...]
 */
import fs from 'node:fs';
import path from 'node:path';
import { benchRepos, extractRepo, howToProvide, mirrorOf, QUALITY_DIR, type BenchRepo } from './repos.ts';
import type { TruthDeclaration, TruthFile } from './truth-format.ts';
import { goCallers, goTool } from './tools/go-callers.ts';
import { javaCallers, javaTool } from './tools/java-callers.ts';
import { jsCallers, jsTool } from './tools/js-callers.ts';
import { pyCallers, pyTool } from './tools/py-callers.ts';
import { rsCallers, rsTool } from './tools/rs-callers.ts';
import { tsCallers, tsTool } from './tools/ts-callers.ts';

const NOTES: Record<BenchRepo['language'], string[]> = {
  typescript: [
    'Incoming calls as the TypeScript checker reports them: call, new, tagged-template and decorator sites; a call through an interface or base-class member counts for the implementations the checker relates to it.',
    'Functions passed or stored as values are not calls.',
    'A dispatch caller (no call site names the declaration) is reachable when a call site resolves to a member of a class or interface the declaration\'s class is or derives from (extends, implements, transitively); else it names a sibling implementation (or only reads the method as a value) and no call there can run the declaration.',
  ],
  javascript: [
    'Call sites the TypeScript checker relates to the declaration (over the .js/.mjs/.cjs files with allowJs, the checker\'s own inference, bundler resolution, no type packages): find-references at the declaration, plus every call site whose callee symbol the checker resolves to it through import/require aliases (find-references misses a require of an ES module\'s export): call, new, tagged-template, f.call/f.apply/f.bind.',
    'Declarations include the assigned forms of JavaScript: `Foo.prototype.bar = function` (Foo.bar), `obj.bar = function` at a module\'s top level (obj.bar), `exports.bar = function` (bar). One the checker holds no symbol for (assigned on an `any` value) is left out; a call on a receiver the checker cannot type (an untyped parameter) is missing from the truth.',
    'Functions passed or stored as values are not calls. The caller is the innermost declaration around the call (a class for code in its constructor or fields; a function in an object literal), else the file.',
    'The checker reads a function that assigns this.x as a constructor of its own, so this.m() inside `app.init = function () { this.cache = {}; this.m() }` is no call of app.m here, though JavaScript runs it on app.',
  ],
  python: [
    'pyright resolves receivers by inferred types; a call on a receiver whose type it cannot infer (an unannotated parameter, a value from an untyped library) is missing from the truth.',
    'A call through a base-class-typed receiver counts for the base method, not the overrides.',
    'Only call sites count: pyright\'s incoming calls also list method values (a callback dict, `self.app = self.not_found`), which are dropped; every read of a property counts.',
  ],
  go: [
    'Static callees from go/types: a call through an interface value counts for the interface method, which is not a declaration here, not for its implementations.',
    'Conversions (http.HandlerFunc(f)) are not calls; method values and functions passed as values are not calls.',
  ],
  java: [
    'Static callees from javac attribution: a call through an interface or abstract method counts for that method (no body: not a declaration here), not for the overrides; a call on a subclass receiver to an inherited method counts for the base declaration.',
    'Caller of code in a field initializer or initializer block: the class. Constructors are callers, not declarations. Optional dependencies absent from the extraction (re2j) leave a few calls unresolved.',
  ],
  rust: [
    'Static callees from rustc (save-analysis of src/lib.rs compiled as a test crate with the default features): a reference to a function or method of the crate followed by `(` is a call site (a function stored or passed as a value is not).',
    'A call resolved to a trait method counts for that method when it has a body and, as a dispatch caller, for each implementation of it in the crate; rustc does not record which one a site runs, so none is marked reachable (the direct recall is the measure). Implementations of another crate\'s trait (Display::fmt, Iterator::next, FromStr::from_str) are not declarations: their calls resolve to that crate.',
    'Files rustc does not compile on x86_64 (another target\'s SIMD module) are left out of the extraction. Callers inside macro bodies are where rustc puts the reference.',
  ],
};

/** Ground truth for one extracted repository. */
async function computeTruth(r: BenchRepo, root: string): Promise<{ tool: string; declarations: TruthDeclaration[] }> {
  if (r.language === 'typescript') return { tool: tsTool(), declarations: tsCallers(root, r.truthScope) };
  if (r.language === 'javascript') return { tool: jsTool(), declarations: jsCallers(root, r.truthScope) };
  if (r.language === 'python') return { tool: await pyTool(), declarations: await pyCallers(root, r.truthScope) };
  if (r.language === 'go') return { tool: goTool(), declarations: goCallers(root) };
  if (r.language === 'java') return { tool: javaTool(), declarations: javaCallers(root, r.truthScope) };
  if (r.language === 'rust') return { tool: rsTool(), declarations: await rsCallers(root) };
  throw new Error(`no ground-truth tool for ${r.language}`);
}

/** The truth as JSON with one declaration per line: small, and diffs show which answers changed. */
function stringifyTruth(file: TruthFile): string {
  const { declarations, ...head } = file;
  const top = JSON.stringify(head, null, 1).replace(/\n}$/, '');
  return `${top},\n "declarations": [\n${declarations.map((d) => '  ' + JSON.stringify(d)).join(',\n')}\n ]\n}\n`;
}

/** Writes truth/<id>.json for the named repositories (all when none is named). */
export async function writeTruth(ids: string[]): Promise<void> {
  const repos = benchRepos().filter((r) => ids.length === 0 || ids.includes(r.id));
  const missing = repos.filter((r) => !mirrorOf(r));
  if (missing.length) {
    console.log(howToProvide(missing));
    return;
  }
  fs.mkdirSync(path.join(QUALITY_DIR, 'truth'), { recursive: true });
  for (const r of repos) {
    const root = extractRepo(r, mirrorOf(r)!);
    const t0 = performance.now();
    try {
      let computed: Awaited<ReturnType<typeof computeTruth>>;
      try {
        computed = await computeTruth(r, root);
      } catch (error) {
        // A missing toolchain (no `go`, no `java`) keeps the committed truth rather than failing the bench.
        console.log(`truth ${r.id}: not recomputed (${(error as Error).message.split('\n')[0]}); keeping truth/${r.id}.json`);
        continue;
      }
      const { tool, declarations } = computed;
      const file: TruthFile = {
        repo: r.repo,
        commit: r.commit,
        language: r.language,
        tool,
        generatedAt: new Date().toISOString(),
        script: `node --import tsx/esm bench/quality/truth.ts ${r.id}`,
        notes: NOTES[r.language],
        declarations,
      };
      fs.writeFileSync(path.join(QUALITY_DIR, 'truth', `${r.id}.json`), stringifyTruth(file));
      const calls = declarations.reduce((n, d) => n + d.callers.length, 0);
      console.log(`truth ${r.id}: ${declarations.length} declarations, ${calls} caller links (${tool}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(QUALITY_DIR, 'truth.ts')) {
  await writeTruth(process.argv.slice(2));
}
