/**
 * Ground truth for TypeScript callers: the TypeScript LanguageService call hierarchy
 * (prepareCallHierarchy + provideCallHierarchyIncomingCalls) over the repository's own tsconfig.
 * Declarations are functions (declarations and `const f = () =>` / function expressions bound to a
 * name) and class methods with a body (overload signatures, abstract and interface members are not
 * declarations of their own); callers are the enclosing named declaration the checker reports, or the
 * file for top-level code. Run through bench/quality/truth.ts, never directly.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { TruthCaller, TruthDeclaration } from '../truth-format.ts';

/** Loads the project's tsconfig (following `extends`) and returns a LanguageService over its files. */
function languageService(root: string): { service: ts.LanguageService; files: string[] } {
  const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
  if (!configPath) throw new Error(`no tsconfig.json under ${root}`);
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath));
  // `types: ["node"]` would fail without @types/node in the extracted repository; it only types globals.
  const options: ts.CompilerOptions = { ...parsed.options, types: [], noEmit: true };
  const files = parsed.fileNames;
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => files,
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
    getCurrentDirectory: () => root,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return { service: ts.createLanguageService(host, ts.createDocumentRegistry()), files };
}

interface Found {
  name: string;
  kind: 'function' | 'method';
  nameNode: ts.Node;
  decl: ts.Node;
}

/** Name of the class (or object) a method belongs to, for the qualified name. */
function ownerName(node: ts.Node): string {
  const owner = node.parent;
  if ((ts.isClassDeclaration(owner) || ts.isClassExpression(owner)) && owner.name) return owner.name.text;
  if (ts.isClassExpression(owner) && ts.isVariableDeclaration(owner.parent) && ts.isIdentifier(owner.parent.name)) return owner.parent.name.text;
  return '(anonymous)';
}

/** Every function and class method with a body in one source file. */
function declarationsOf(sf: ts.SourceFile): Found[] {
  const out: Found[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name && node.body) {
      out.push({ name: node.name.text, kind: 'function', nameNode: node.name, decl: node });
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))) {
      out.push({ name: node.name.text, kind: 'function', nameNode: node.name, decl: node });
    } else if (ts.isMethodDeclaration(node) && node.body && (ts.isClassDeclaration(node.parent) || ts.isClassExpression(node.parent))) {
      const n = node.name;
      const text = ts.isIdentifier(n) || ts.isPrivateIdentifier(n) ? n.text : null;
      if (text) out.push({ name: `${ownerName(node)}.${text}`, kind: 'method', nameNode: n, decl: node });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const lineOf = (sf: ts.SourceFile, pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;

/** Whether the name at `pos` resolves (through aliases) to the declaration `decl` itself. */
function namesDeclaration(checker: ts.TypeChecker, sf: ts.SourceFile, pos: number, decl: ts.Node): boolean {
  const token = findToken(sf, pos);
  if (!token) return true;
  let symbol = checker.getSymbolAtLocation(token);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  if (!symbol?.declarations) return true;
  return symbol.declarations.some((d) => d === decl || d.parent === decl || (ts.isVariableDeclaration(decl) && d === decl));
}

/** The innermost token starting at `pos`. */
function findToken(sf: ts.SourceFile, pos: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (node.getStart(sf) <= pos && pos < node.getEnd()) {
      found = node;
      ts.forEachChild(node, visit);
    }
  };
  visit(sf);
  return found;
}

/** Computes the callers of every declaration under `scope` (a directory relative to root, '' for all). */
export function tsCallers(root: string, scope: string): TruthDeclaration[] {
  const { service, files } = languageService(root);
  const program = service.getProgram()!;
  const checker = program.getTypeChecker();
  const rel = (f: string): string => path.relative(root, f).split(path.sep).join('/');
  const inScope = (f: string): boolean => !f.endsWith('.d.ts') && (scope === '' || rel(f).startsWith(scope + '/'));
  const out: TruthDeclaration[] = [];
  for (const file of files.filter(inScope).sort()) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const d of declarationsOf(sf)) {
      const start = d.nameNode.getStart(sf);
      const items = service.prepareCallHierarchy(file, start);
      const item = Array.isArray(items) ? items[0] : items;
      const callers = new Map<string, TruthCaller>();
      if (item) {
        for (const call of service.provideCallHierarchyIncomingCalls(file, start)) {
          const from = call.from;
          const fromSf = program.getSourceFile(from.file);
          if (!fromSf) continue;
          // Through an interface/base member when no call site names this very declaration.
          const direct = call.fromSpans.some((span) => namesDeclaration(checker, fromSf, span.start, d.decl));
          const isFile = from.kind === ts.ScriptElementKind.scriptElement || from.kind === ts.ScriptElementKind.moduleElement && from.span.start === 0;
          const caller: TruthCaller = isFile
            ? { path: rel(from.file), name: null, line: 0 }
            : { path: rel(from.file), name: from.name, line: lineOf(fromSf, from.selectionSpan.start) };
          const key = `${caller.path}:${caller.line}`;
          // One site naming this declaration makes the caller direct, whatever its other sites say.
          const dispatchOnly = !direct && callers.get(key)?.dispatch !== false;
          callers.set(key, { ...caller, ...(dispatchOnly ? { dispatch: true } : {}) });
        }
      }
      out.push({
        path: rel(file),
        name: d.name,
        kind: d.kind,
        line: lineOf(sf, start),
        startLine: lineOf(sf, d.decl.getStart(sf)),
        endLine: lineOf(sf, d.decl.getEnd()),
        callers: [...callers.values()].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line),
      });
    }
  }
  return out;
}

/** The tool and version that produced the answers. */
export const tsTool = (): string => `typescript ${ts.version} LanguageService call hierarchy (incoming calls)`;
