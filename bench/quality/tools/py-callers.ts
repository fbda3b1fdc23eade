/**
 * Ground truth for Python callers: pyright's language server (the npm `pyright` package) over stdio.
 * Declarations come from its documentSymbol answer (module functions, class methods; nested
 * functions are callers only); callers from callHierarchy/incomingCalls, the enclosing function or
 * method of each call, or the file for module-level code. pyright's incoming calls also list
 * references that are no call (`callbacks = {"on_end": self.on_end}`, `self.app = self.not_found`):
 * like the other languages' truth, only call sites count (a reference followed by `(`), except for a
 * property, whose every read runs it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import type { TruthCaller, TruthDeclaration } from '../truth-format.ts';

const require = createRequire(import.meta.url);
const PYRIGHT_DIR = path.dirname(require.resolve('pyright/package.json'));

// LSP SymbolKind / CallHierarchy kinds used here.
const KIND = { file: 1, module: 2, class: 5, method: 6, function: 12 } as const;

interface Position { line: number; character: number }
interface Range { start: Position; end: Position }
interface DocumentSymbol { name: string; kind: number; range: Range; selectionRange: Range; children?: DocumentSymbol[] }
interface CallItem { name: string; kind: number; uri: string; range: Range; selectionRange: Range }

/** A minimal JSON-RPC client over the language server's stdio (Content-Length framing). */
class LspClient {
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  constructor(private proc: ChildProcessWithoutNullStreams) {
    proc.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    proc.stderr.on('data', () => {});
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString())![1]);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8'));
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      this.onMessage(message);
    }
  }

  private onMessage(m: any): void {
    if (m.id !== undefined && m.method) {
      // A server request: configuration gets one empty section per item, the rest a plain null.
      const result = m.method === 'workspace/configuration' ? m.params.items.map(() => ({})) : null;
      this.send({ jsonrpc: '2.0', id: m.id, result });
    } else if (m.id !== undefined && this.pending.has(m.id)) {
      const p = this.pending.get(m.id)!;
      this.pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
    }
  }

  private send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.proc.stdin.write(body);
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }
}

function pythonFiles(root: string, scope: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === '__pycache__') continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.py')) out.push(p);
    }
  };
  walk(path.join(root, scope));
  return out.sort();
}

/** Computes the callers of every module function and class method under `scope` ('' for all). */
const fileLines = new Map<string, string[]>();
/** A file's lines by URI (read once). */
function linesOf(uri: string): string[] {
  let lines = fileLines.get(uri);
  if (!lines) fileLines.set(uri, (lines = fs.readFileSync(fileURLToPath(uri), 'utf8').split('\n')));
  return lines;
}

/** Whether the reference ending at `end` is called: the next code after it (spaces, line breaks) is `(`. */
function calledAt(lines: readonly string[], end: Position): boolean {
  for (let l = end.line, c = end.character; l < lines.length && l <= end.line + 3; l++, c = 0) {
    const rest = lines[l].slice(c).trimStart();
    if (rest === '' || rest === '\\') continue;
    return rest.startsWith('(');
  }
  return false;
}

/** Whether a method symbol is a property (its decorators, between the symbol's start and its name, say so). */
function isProperty(lines: readonly string[], s: DocumentSymbol): boolean {
  const head = lines.slice(s.range.start.line, s.selectionRange.start.line + 1).join('\n');
  return /@(?:\w+\.)*(?:property|cached_property)\b|@\w+\.(?:setter|getter|deleter)\b/.test(head);
}

export async function pyCallers(root: string, scope: string): Promise<TruthDeclaration[]> {
  // A src layout (`src/<package>`): the tests import the package from there, as an installed copy would be.
  const extraPaths = fs.existsSync(path.join(root, 'src')) ? ['src'] : [];
  fs.writeFileSync(path.join(root, 'pyrightconfig.json'), JSON.stringify({ include: ['.'], typeCheckingMode: 'basic', extraPaths }));
  const proc = spawn(process.execPath, [path.join(PYRIGHT_DIR, 'langserver.index.js'), '--stdio'], { cwd: root });
  const lsp = new LspClient(proc);
  const rootUri = pathToFileURL(root).href;
  const rel = (uri: string): string => path.relative(root, fileURLToPath(uri)).split(path.sep).join('/');
  try {
    await lsp.request('initialize', {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'repo' }],
      capabilities: { textDocument: { callHierarchy: {}, documentSymbol: { hierarchicalDocumentSymbolSupport: true } }, workspace: { configuration: true } },
    });
    lsp.notify('initialized', {});
    const out: TruthDeclaration[] = [];
    for (const file of pythonFiles(root, scope)) {
      const uri = pathToFileURL(file).href;
      const text = fs.readFileSync(file, 'utf8');
      const lines = text.split('\n');
      lsp.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
      const symbols = (await lsp.request<DocumentSymbol[] | null>('textDocument/documentSymbol', { textDocument: { uri } })) ?? [];
      const targets: { name: string; kind: 'function' | 'method'; s: DocumentSymbol }[] = [];
      for (const s of symbols) {
        if (s.kind === KIND.function) targets.push({ name: s.name, kind: 'function', s });
        if (s.kind === KIND.class) for (const m of s.children ?? []) if (m.kind === KIND.method || m.kind === KIND.function) targets.push({ name: `${s.name}.${m.name}`, kind: 'method', s: m });
      }
      for (const t of targets) {
        const position = t.s.selectionRange.start;
        const items = (await lsp.request<CallItem[] | null>('textDocument/prepareCallHierarchy', { textDocument: { uri }, position })) ?? [];
        const callers = new Map<string, TruthCaller>();
        if (items.length) {
          const incoming = (await lsp.request<{ from: CallItem; fromRanges: { start: Position; end: Position }[] }[] | null>('callHierarchy/incomingCalls', { item: items[0] })) ?? [];
          const property = isProperty(lines, t.s);
          for (const { from, fromRanges } of incoming) {
            if (!property && !fromRanges.some((r) => calledAt(linesOf(from.uri), r.end))) continue; // a method value, not a call
            const isFile = from.kind === KIND.module || from.kind === KIND.file;
            const caller: TruthCaller = isFile ? { path: rel(from.uri), name: null, line: 0 } : { path: rel(from.uri), name: from.name, line: from.selectionRange.start.line + 1 };
            callers.set(`${caller.path}:${caller.line}`, caller);
          }
        }
        out.push({
          path: rel(uri),
          name: t.name,
          kind: t.kind,
          line: position.line + 1,
          startLine: t.s.range.start.line + 1,
          endLine: t.s.range.end.line + 1,
          callers: [...callers.values()].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line),
        });
      }
      lsp.notify('textDocument/didClose', { textDocument: { uri } });
    }
    await lsp.request('shutdown', null).catch(() => null);
    lsp.notify('exit', null);
    return out;
  } finally {
    proc.kill();
  }
}

/** The tool and version that produced the answers. */
export async function pyTool(): Promise<string> {
  const version = JSON.parse(fs.readFileSync(path.join(PYRIGHT_DIR, 'package.json'), 'utf8')).version as string;
  return `pyright ${version} language server, callHierarchy/incomingCalls`;
}
