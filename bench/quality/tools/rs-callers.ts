/**
 * Ground truth for Rust callers: rustc's own name and method resolution, read from its save-analysis
 * output (`-Zsave-analysis`, in rustc up to 1.67; Debian bookworm's `rustc` 1.63 works, with
 * RUSTC_BOOTSTRAP=1 for the unstable flag). The crate's `src/lib.rs` is compiled as a test crate
 * (`--test`: `#[cfg(test)]` modules included) with no dependencies; a `Function` reference whose
 * target is a function or method of the crate is a call site when a `(` (after a turbofish `::<…>`)
 * follows the name: a function stored or passed as a value (`Vtable { clone: shared_clone }`) is
 * not. A reference's caller is the
 * innermost function holding it (closures belong to it), the file for code outside functions; the
 * function extents come from a plain tree-sitter parse (syntax only: the resolution is rustc's).
 *
 * rustc resolves `x.run()` on a concrete type to the trait's method when `run` comes from a trait:
 * such a caller counts for the trait's method when it has a body (direct) and, as a dispatch
 * caller, for every implementation of that trait method in the crate. Which one a site runs
 * rustc does not record (`bytes.advance(n)` runs `Bytes`'s, a generic `B: Buf` any), so these are
 * not marked reachable: they count in precision and in the "all" recall, not in the direct one. Methods that
 * implement a trait of another crate (`Iterator::next`, `fmt`) are not declarations here: their
 * calls resolve to that crate's trait. Files rustc does not compile (`#[cfg]`-gated for another
 * target) hold neither declarations nor callers.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createParser, loadGrammar } from '../../../plugins/graph/engine/parsers/tree-sitter.ts';
import type { TruthCaller, TruthDeclaration } from '../truth-format.ts';

const RUSTC = process.env.M1ND_TRUTH_RUSTC ?? '/usr/bin/rustc';

interface Id { krate: number; index: number }
interface Span { file_name: string; line_start: number; column_start: number; line_end: number; column_end: number }
interface Def { kind: string; id: Id; span: Span; name: string; qualname: string; parent: Id | null }
interface Ref { kind: string; span: Span; ref_id: Id }

/** A function item of a file: its name's position, its extent, and the name the truth gives it. */
interface FnItem { name: string; line: number; column: number; startLine: number; endLine: number; startByte: number; endByte: number; hasBody: boolean }

const key = (id: Id): string => `${id.krate}:${id.index}`;

/** The last path segment of a type, without generics or references (`&'a iter::Bytes<'a>` → `Bytes`). */
function typeName(text: string): string {
  const bare = text.replace(/<[^<>]*(?:<[^<>]*>[^<>]*)*>/g, '').replace(/^[&*]\s*(?:'\w+\s+)?(?:mut\s+|const\s+)?/, '').trim();
  return bare.split('::').pop()!.trim();
}

/** Every `fn` of a file with its owner (`impl X` / `impl T for X` → X, `trait T` → T). */
async function functionsOf(source: string): Promise<FnItem[]> {
  const parser = createParser(await loadGrammar('rust'));
  const tree = parser.parse(source);
  if (!tree) return [];
  const out: FnItem[] = [];
  const visit = (node: any, owner: string | null): void => {
    let next = owner;
    if (node.type === 'impl_item') next = typeName(node.childForFieldName('type')?.text ?? '');
    else if (node.type === 'trait_item') next = node.childForFieldName('name')?.text ?? null;
    else if (node.type === 'mod_item' || node.type === 'function_item') next = null;
    if (node.type === 'function_item' || node.type === 'function_signature_item') {
      const name = node.childForFieldName('name');
      if (name) {
        out.push({
          name: owner ? `${owner}.${name.text}` : name.text,
          line: name.startPosition.row + 1,
          column: name.startPosition.column + 1,
          startLine: node.startPosition.row + 1,
          endLine: node.endPosition.row + 1,
          startByte: node.startIndex,
          endByte: node.endIndex,
          hasBody: node.type === 'function_item',
        });
      }
    }
    for (let i = 0; i < node.namedChildCount; i++) visit(node.namedChild(i), next);
  };
  visit(tree.rootNode, null);
  tree.delete();
  parser.delete();
  return out;
}

/** The crate's name, edition and default features (as cargo would enable them) from its Cargo.toml. */
function crateOf(root: string): { name: string; edition: string; features: string[] } {
  const toml = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
  const section = (name: string) => toml.split(/^\[/m).find((s) => s.startsWith(`${name}]`)) ?? '';
  const pkg = section('package');
  const name = /^name\s*=\s*"([^"]+)"/m.exec(pkg)?.[1] ?? 'krate';
  const edition = /^edition\s*=\s*"(\d+)"/m.exec(pkg)?.[1] ?? '2015';
  const list = /^default\s*=\s*\[([^\]]*)\]/m.exec(section('features'))?.[1] ?? '';
  // A default feature that names a dependency (`dep:x`, `x/y`) cannot be built without it: left out.
  const features = [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]).filter((f) => !f.includes(':') && !f.includes('/'));
  return { name: name.replace(/-/g, '_'), edition, features };
}

/** Every function and method with a body of the crate at `root` (its `src/lib.rs`), with its callers. */
export async function rsCallers(root: string): Promise<TruthDeclaration[]> {
  const crate = crateOf(root);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-rs-truth-'));
  let analysis: { defs: Def[]; refs: Ref[] };
  try {
    // `let … else` is stable from 1.65: named as a feature so that 1.63 reads newer crates.
    const args = ['--crate-type', 'lib', '--crate-name', crate.name, '--edition', crate.edition, '--test', ...crate.features.flatMap((f) => ['--cfg', `feature="${f}"`]), '-Zsave-analysis', '-Zcrate-attr=feature(let_else)', '--cap-lints', 'allow', '--emit', 'metadata', '--out-dir', out, 'src/lib.rs'];
    try {
      execFileSync(RUSTC, args, { cwd: root, env: { ...process.env, RUSTC_BOOTSTRAP: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      // Errors leave the analysis of the rest (a std method newer than this rustc): counted, not fatal.
      const stderr = String((error as { stderr?: Buffer }).stderr ?? '');
      console.error(`rs-callers: rustc reported ${(stderr.match(/^error/gm) ?? []).length} error(s); the save-analysis of the rest is used`);
    }
    // `--test` names it `<crate>.json` (a test harness), a plain library `lib<crate>.json`.
    const dir = path.join(out, 'save-analysis');
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
    if (!file) throw new Error(`rustc wrote no save-analysis for ${crate.name}`);
    analysis = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }

  const defs = new Map(analysis.defs.map((d) => [key(d.id), d]));
  const fileItems = new Map<string, FnItem[]>();
  const items = async (file: string): Promise<FnItem[]> => {
    let list = fileItems.get(file);
    if (!list) {
      const full = path.join(root, file);
      list = fs.existsSync(full) && file.endsWith('.rs') ? await functionsOf(fs.readFileSync(full, 'utf8')) : [];
      fileItems.set(file, list);
    }
    return list;
  };
  // A def's function item: the fn whose name stands where rustc puts the def.
  const itemOf = async (d: Def): Promise<FnItem | undefined> => (await items(d.span.file_name)).find((f) => f.line === d.span.line_start && f.column === d.span.column_start);

  const declarations = new Map<string, TruthDeclaration>();
  const declOf = new Map<string, TruthDeclaration>();
  const implsOf = new Map<string, string[]>(); // trait method def → its implementations' defs (same trait, same name)
  for (const d of analysis.defs) {
    if ((d.kind !== 'Function' && d.kind !== 'Method') || d.id.krate !== 0) continue;
    const parent = d.parent ? defs.get(key(d.parent)) : undefined;
    // An implementation of another crate's trait method: its calls resolve to that crate.
    if (d.kind === 'Method' && d.parent && d.parent.krate !== 0) continue;
    if (parent?.kind === 'Trait' && d.qualname.startsWith('<')) {
      const decl = analysis.defs.find((t) => t.kind === 'Method' && t.parent && key(t.parent) === key(d.parent!) && !t.qualname.startsWith('<') && t.name === d.name);
      if (decl) implsOf.set(key(decl.id), [...(implsOf.get(key(decl.id)) ?? []), key(d.id)]);
    }
    const item = await itemOf(d);
    if (!item || !item.hasBody) continue;
    const decl: TruthDeclaration = {
      path: d.span.file_name,
      name: item.name,
      kind: item.name.includes('.') && d.kind === 'Method' ? 'method' : 'function',
      line: item.line,
      startLine: item.startLine,
      endLine: item.endLine,
      callers: [],
    };
    const at = `${decl.path}:${decl.line}`;
    if (!declarations.has(at)) declarations.set(at, decl);
    declOf.set(key(d.id), declarations.get(at)!);
  }

  /** The caller holding a reference (in a file of the extraction: the loop below checks): the innermost fn around it, else the file. */
  const callerAt = async (span: Span): Promise<TruthCaller> => {
    const list = await items(span.file_name);
    const around = list.filter((f) => f.hasBody && (f.startLine < span.line_start || (f.startLine === span.line_start && f.line <= span.line_start)) && span.line_start <= f.endLine);
    const inner = around.sort((a, b) => a.endByte - a.startByte - (b.endByte - b.startByte))[0];
    return inner ? { path: span.file_name, name: inner.name, line: inner.line } : { path: span.file_name, name: null, line: 0 };
  };
  const add = (decl: TruthDeclaration, caller: TruthCaller): void => {
    const same = decl.callers.find((c) => c.path === caller.path && c.line === caller.line);
    if (!same) decl.callers.push(caller);
    else if (same.dispatch && !caller.dispatch) (delete same.dispatch, delete same.reachable);
  };
  const sourceLines = new Map<string, string[]>();
  /** Whether the reference's name is followed by a call's `(` (after a turbofish `::<…>` when there is one). */
  const isCall = (span: Span): boolean => {
    let lines = sourceLines.get(span.file_name);
    if (!lines) sourceLines.set(span.file_name, (lines = fs.readFileSync(path.join(root, span.file_name), 'utf8').split('\n')));
    // save-analysis byte offsets count across the whole compilation; its lines and (1-based, character) columns are the file's.
    const after = `${[...(lines[span.line_end - 1] ?? '')].slice(span.column_end - 1).join('')}\n${lines[span.line_end] ?? ''}`.replace(/^\s*::\s*<[^()]*?>/, '');
    return /^\s*\(/.test(after);
  };
  for (const r of analysis.refs) {
    if (r.kind !== 'Function' || r.ref_id.krate !== 0) continue;
    if (!fs.existsSync(path.join(root, r.span.file_name)) || !isCall(r.span)) continue;
    const caller = await callerAt(r.span);
    const target = declOf.get(key(r.ref_id));
    if (target) add(target, caller);
    for (const impl of implsOf.get(key(r.ref_id)) ?? []) {
      const d = declOf.get(impl);
      if (d) add(d, { ...caller, dispatch: true });
    }
  }
  for (const d of declarations.values()) d.callers.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
  return [...declarations.values()].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
}

/** The tool and version that produced the answers. */
export function rsTool(): string {
  const version = execFileSync(RUSTC, ['--version']).toString().trim();
  return `rustc save-analysis (bench/quality/tools/rs-callers.ts, ${version}, RUSTC_BOOTSTRAP=1)`;
}
