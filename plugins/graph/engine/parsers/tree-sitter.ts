/// <reference types="emscripten" preserve="true" />
/**
 * Lazy, cached loading of the web-tree-sitter runtime and of the WASM grammars shipped by
 * @vscode/tree-sitter-wasm. Nothing is loaded at import time: the runtime starts on the first
 * request (the web-tree-sitter module itself is imported then, not when this file is evaluated) and
 * each grammar is compiled the first time a file of its language is met.
 */
import { createRequire } from 'node:module';
import type { Language, Parser } from 'web-tree-sitter';

/** Grammar files this engine uses (basename of `tree-sitter-<name>.wasm`). */
export type GrammarName = 'typescript' | 'tsx' | 'javascript' | 'python' | 'rust' | 'go' | 'java';

const require = createRequire(import.meta.url);

let runtime: Promise<void> | undefined;
let lib: typeof import('web-tree-sitter') | undefined;
/**
 * The options object handed to the runtime's start: emscripten uses it as its module object and keeps
 * its current memory views on it (`HEAP8` is replaced each time the linear memory grows). One per
 * thread, like the runtime: this file loaded again (a plugin's hot reload re-imports its modules) finds
 * the runtime started already, and its start fills only the object of the first start — so every copy
 * shares that one.
 */
const moduleObject = ((globalThis as Record<symbol, unknown>)[Symbol.for('m1nd.tree-sitter.module')] ??= {}) as { HEAP8?: Int8Array };
const grammars = new Map<GrammarName, Promise<Language>>();

/** Starts the WASM runtime once; later calls return the same promise. */
export function initTreeSitter(): Promise<void> {
  // A failed start is not cached, so a later call can retry.
  runtime ??= import('web-tree-sitter')
    .then((m) => {
      lib = m;
      return m.Parser.init(moduleObject as EmscriptenModule);
    })
    .catch((error: unknown) => {
      runtime = undefined;
      throw error;
    });
  return runtime;
}

/**
 * Bytes of the tree-sitter runtime's linear memory (0 before it started). WebAssembly memory only
 * grows: one large file's parse leaves its high-water mark for the life of the thread.
 */
export function wasmMemoryBytes(): number {
  return moduleObject.HEAP8?.byteLength ?? 0;
}

/**
 * The runtime's module object (its exports and memory views once started), for readers that call the
 * runtime's cursor functions directly (the structure plugin's shape walk).
 */
export function treeSitterModule(): object {
  return moduleObject;
}

/** Absolute path of a grammar's `.wasm` file inside @vscode/tree-sitter-wasm. */
export function grammarPath(name: GrammarName): string {
  return require.resolve(`@vscode/tree-sitter-wasm/wasm/tree-sitter-${name}.wasm`);
}

/** Loads a grammar once (starting the runtime if needed); later calls share the same promise. */
export function loadGrammar(name: GrammarName): Promise<Language> {
  let pending = grammars.get(name);
  if (pending === undefined) {
    pending = initTreeSitter()
      .then(() => lib!.Language.load(grammarPath(name)))
      .catch((error: unknown) => {
        grammars.delete(name);
        throw error;
      });
    grammars.set(name, pending);
  }
  return pending;
}

/**
 * The web-tree-sitter module the grammars were loaded with (so the runtime is started): its classes
 * (`Query`, `Parser`) are the ones that work with those grammars. Modules that construct them take them
 * from here rather than importing web-tree-sitter, so nothing loads it at start.
 */
export function treeSitterRuntime(): typeof import('web-tree-sitter') {
  if (!lib) throw new Error('the tree-sitter runtime is not started (load a grammar first)');
  return lib;
}

/** A new parser bound to a loaded grammar (so the runtime is loaded); callers keep and reuse it across files. */
export function createParser(language: Language): Parser {
  const parser = new (treeSitterRuntime().Parser)();
  parser.setLanguage(language);
  return parser;
}
