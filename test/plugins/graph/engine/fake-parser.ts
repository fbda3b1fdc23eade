/**
 * A tiny deterministic parser for process tests: `.py` files only, `def name` lines become functions
 * and `call name` lines become calls. Optional delay per file (busy wait) to widen kill windows.
 */
import type { FileExtraction, Language } from '../../../../plugins/graph/engine/extraction.ts';
import type { SourceParser } from '../../../../plugins/graph/engine/source-parser.ts';

/** A SourceParser over the fake language; `delayMs` sleeps per file. */
export function fakeParser(delayMs = 0, onFile?: (path: string) => void): SourceParser {
  return {
    version: 'fake-1',
    detectLanguage: (path: string): Language | null => (path.endsWith('.py') ? 'python' : null),
    extractorFor: async () => (path: string, source: string): FileExtraction => {
      if (delayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delayMs);
      onFile?.(path);
      const lines = source.split('\n');
      const ex: FileExtraction = { path, language: 'python', loc: lines.length, symbols: [], imports: [], calls: [], inherits: [], references: [], docLinks: [], parseErrors: 0 };
      let current: string | null = null;
      lines.forEach((line, i) => {
        let m = /^def (\w+)/.exec(line);
        if (m) {
          current = m[1];
          ex.symbols.push({ kind: 'function', name: m[1], qualifiedName: m[1], startLine: i + 1, endLine: i + 1 });
        }
        m = /^\s*call (\w+)/.exec(line);
        if (m) ex.calls.push({ caller: current, callee: m[1], line: i + 1 });
      });
      return ex;
    },
  };
}

/** Source for a fake file defining `fn` and calling `calls`. */
export function fakeSource(fn: string, calls: string[] = []): string {
  return [`def ${fn}`, ...calls.map((c) => `  call ${c}`), ''].join('\n');
}
