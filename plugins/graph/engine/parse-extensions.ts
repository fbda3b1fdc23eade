/**
 * Parse extensions: work a plugin does on each file's syntax tree inside the ingest's parse (a parse
 * worker, or the main thread for a small run), where the tree exists already, so a plugin that
 * needs facts of the code never parses the workspace a second time.
 *
 * A plugin registers a module (its URL), a key and a version (`GraphService.registerParseExtension`).
 * The parse side imports the module once per thread and calls its default export per file with the
 * tree, the text it was parsed from, the file as read, the language and the path; the result must be
 * JSON-serialisable (undefined or null: nothing for this file). The engine stores it per file with
 * the file's content hash and the extension's version (store-parse-extensions.ts: a table of its own,
 * written in the ingest's commit, rows dropped with their file) and serves it back with
 * `extensionData(key, paths?)`, only where the stored hash and version are the current ones.
 * An extension that throws or runs over its per-file budget loses that file's result (reported by
 * `parseExtensionReport()`); the parse and the graph never depend on it.
 */
import type { Language as Grammar, Parser, Query, Tree } from 'web-tree-sitter';
import type { Language } from './extraction.ts';
import { createParser, treeSitterRuntime } from './parsers/tree-sitter.ts';

/** What a plugin registers. */
export interface ParseExtensionSpec {
  /** Unique name (`plugin.what`). */
  key: string;
  /**
   * Bumped whenever the output may change: stored rows of another version are never served. May be a
   * getter: it is then read on first need (an ingest, a read of stored rows), once, not at `register`.
   */
  version: string;
  /** URL (file:) of the module whose default export is a `ParseExtensionFn`. */
  module: string;
  /** Languages it runs on (default every tree-sitter language). */
  languages?: readonly Language[];
  /**
   * Per-file budget in ms (default 250): a result that took longer is dropped and reported. The
   * first file of each language in a thread is exempt (it pays the extension's warm-up, e.g. compiling its queries).
   */
  budgetMs?: number;
}

/** What the function gets per file. */
export interface ParseExtensionInput {
  /** The syntax tree (valid during the call only: never keep it or its nodes). */
  tree: Tree;
  /** The text the tree was parsed from (differs from `text` by a stripped byte-order mark or a syntax repair of a broken file). */
  source: string;
  /** The file as read. */
  text: string;
  language: Language;
  /** Workspace-relative path. */
  path: string;
  /** A query compiled for the tree's grammar (cached per grammar and source). */
  query(source: string): Query;
  /**
   * Parses another text with the tree's grammar (e.g. `text` when it differs from `source`); the
   * caller deletes the returned tree.
   */
  parse(text: string): Tree;
}

/** The default export of an extension module. */
export type ParseExtensionFn = (input: ParseExtensionInput) => unknown;

/** One extension's result for one file, as it crosses from a parse worker. */
export interface ExtensionResult {
  key: string;
  /** The output as JSON (absent: nothing stored, see `error`). */
  json?: string;
  ms: number;
  /** Why there is no output: the function threw, could not load, or ran over budget. */
  error?: string;
  overBudget?: boolean;
}

export const DEFAULT_EXTENSION_BUDGET_MS = 250;

const modules = new Map<string, Promise<ParseExtensionFn>>();

function loadModule(url: string): Promise<ParseExtensionFn> {
  let m = modules.get(url);
  if (!m) {
    m = import(url).then((mod: { default?: unknown }) => {
      if (typeof mod.default !== 'function') throw new Error(`parse extension ${url} has no default export function`);
      return mod.default as ParseExtensionFn;
    });
    m.catch(() => modules.delete(url));
    modules.set(url, m);
  }
  return m;
}

/** Extension and language pairs that ran once in this thread (their warm-up is behind them). */
const warmed = new Set<string>();

const queries = new WeakMap<Grammar, Map<string, Query>>();
const parsers = new WeakMap<Grammar, Parser>();

function parseWith(grammar: Grammar, text: string): Tree {
  let parser = parsers.get(grammar);
  if (!parser) parsers.set(grammar, (parser = createParser(grammar)));
  const tree = parser.parse(text);
  if (!tree) throw new Error('tree-sitter gave no tree');
  return tree;
}

function compiled(grammar: Grammar, source: string): Query {
  let byGrammar = queries.get(grammar);
  if (!byGrammar) queries.set(grammar, (byGrammar = new Map()));
  let q = byGrammar.get(source);
  if (!q) {
    q = new (treeSitterRuntime().Query)(grammar, source);
    if (byGrammar.size > 200) byGrammar.clear();
    byGrammar.set(source, q);
  }
  return q;
}

/** The loaded extensions of one parse (one per thread and set of specs). */
export class ExtensionRunner {
  private constructor(private readonly loaded: { spec: ParseExtensionSpec; fn: ParseExtensionFn | null; error?: string }[]) {}

  /** Imports the modules (once per thread); a module that fails to load reports an error on every file. */
  static async load(specs: readonly ParseExtensionSpec[]): Promise<ExtensionRunner> {
    const loaded = await Promise.all(
      specs.map(async (spec) => {
        try {
          return { spec, fn: await loadModule(spec.module) };
        } catch (err) {
          return { spec, fn: null, error: `load failed: ${err instanceof Error ? err.message : String(err)}` };
        }
      }),
    );
    return new ExtensionRunner(loaded);
  }

  /** True when some extension runs on this language. */
  wants(language: Language): boolean {
    return this.loaded.some((l) => !l.spec.languages || l.spec.languages.includes(language));
  }

  /** Runs every extension of the language on one tree; never throws. */
  run(tree: Tree, source: string, text: string, language: Language, path: string): ExtensionResult[] {
    const out: ExtensionResult[] = [];
    const input: ParseExtensionInput = { tree, source, text, language, path, query: (q) => compiled(tree.language, q), parse: (t) => parseWith(tree.language, t) };
    for (const { spec, fn, error } of this.loaded) {
      if (spec.languages && !spec.languages.includes(language)) continue;
      if (!fn) {
        out.push({ key: spec.key, ms: 0, error });
        continue;
      }
      const t = performance.now();
      try {
        const value = fn(input);
        const json = value === undefined || value === null ? undefined : JSON.stringify(value);
        const ms = performance.now() - t;
        const first = !warmed.has(`${spec.key}\0${language}`);
        if (first) warmed.add(`${spec.key}\0${language}`);
        if (!first && ms > (spec.budgetMs ?? DEFAULT_EXTENSION_BUDGET_MS)) out.push({ key: spec.key, ms, overBudget: true });
        else out.push(json === undefined ? { key: spec.key, ms } : { key: spec.key, ms, json });
      } catch (err) {
        out.push({ key: spec.key, ms: performance.now() - t, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return out;
  }
}

/** A row of the `parse_extensions` table. */
export interface ExtensionRow {
  key: string;
  path: string;
  hash: string;
  version: string;
  /** Null: the extension ran and stored nothing (or failed) for this content. */
  json: string | null;
}

/** What the extensions did in the last ingest of this process, per key. */
export interface ExtensionReport {
  files: number;
  stored: number;
  ms: number;
  overBudget: number;
  failed: number;
  /** A few failures (path and message). */
  errors: { path: string; message: string }[];
}

/** What changed: the extension keys and paths an ingest wrote or removed. */
export interface ExtensionChange {
  keys: string[];
  paths: string[];
  removed: string[];
}

/** The extensions registered with one engine, their last report and the change listeners. */
export class ParseExtensionRegistry {
  private readonly specs = new Map<string, ParseExtensionSpec>();
  private readonly listeners = new Set<(change: ExtensionChange) => void>();
  report: Record<string, ExtensionReport> = {};

  /** Registers (or replaces, by key) an extension; it runs from the next ingest on. */
  register(spec: ParseExtensionSpec): void {
    if (!/^[\w.:-]{1,64}$/.test(spec.key)) throw new Error(`parse extension key "${spec.key}": use 1-64 letters, digits, . _ : -`);
    const lazy = Object.getOwnPropertyDescriptor(spec, 'version')?.get;
    if (!lazy) {
      if (!spec.version) throw new Error(`parse extension ${spec.key}: a version is required`);
      this.specs.set(spec.key, { ...spec });
      return;
    }
    // A version made on first need (hashing a rule set at start costs every process that never ingests).
    const { version: _, ...rest } = Object.getOwnPropertyDescriptors(spec);
    let version: string | undefined;
    const copy = Object.defineProperties({}, rest) as ParseExtensionSpec;
    Object.defineProperty(copy, 'version', {
      enumerable: true,
      get: () => {
        if (version === undefined) {
          const v = lazy.call(spec) as unknown;
          if (typeof v !== 'string' || !v) throw new Error(`parse extension ${spec.key}: a version is required`);
          version = v;
        }
        return version;
      },
    });
    this.specs.set(spec.key, copy);
  }

  list(): ParseExtensionSpec[] {
    return [...this.specs.values()];
  }

  version(key: string): string | null {
    return this.specs.get(key)?.version ?? null;
  }

  /** Calls `listener` after each ingest of this process that wrote or removed extension rows; returns the unsubscribe. */
  onChange(listener: (change: ExtensionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rows to write for one parsed file, tallied into the run's report. */
  collect(report: Record<string, ExtensionReport>, path: string, hash: string, results: readonly ExtensionResult[], rows: ExtensionRow[]): void {
    for (const r of results) {
      const spec = this.specs.get(r.key);
      if (!spec) continue;
      const rep = (report[r.key] ??= { files: 0, stored: 0, ms: 0, overBudget: 0, failed: 0, errors: [] });
      rep.files++;
      rep.ms += r.ms;
      if (r.overBudget) rep.overBudget++;
      if (r.error) {
        rep.failed++;
        if (rep.errors.length < 5) rep.errors.push({ path, message: r.error.slice(0, 300) });
      }
      if (r.json !== undefined) rep.stored++;
      rows.push({ key: r.key, path, hash, version: spec.version, json: r.json ?? null });
    }
  }

  /** After a commit: keeps the run's report and tells the listeners. */
  committed(report: Record<string, ExtensionReport>, rows: readonly ExtensionRow[], removed: readonly string[]): void {
    if (Object.keys(report).length > 0) this.report = report;
    if (rows.length === 0 && removed.length === 0) return;
    const change: ExtensionChange = { keys: [...new Set(rows.map((r) => r.key))], paths: [...new Set(rows.map((r) => r.path))], removed: [...removed] };
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
