/** The TypeScript LanguageService host and token lookup the TypeScript and JavaScript truth tools share. */
import fs from 'node:fs';
import ts from 'typescript';
import type { TruthCaller, TruthDeclaration } from '../truth-format.ts';

/** A LanguageService over `files` under `root` with `options`, reading files from disk. */
export function languageServiceOver(root: string, files: readonly string[], options: ts.CompilerOptions): ts.LanguageService {
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...files],
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
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** The innermost token starting at `pos`. */
export function findToken(sf: ts.SourceFile, pos: number): ts.Node | undefined {
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

/** One declaration's truth record: lines of its name and span, callers sorted by place. */
export function truthDeclaration(path: string, sf: ts.SourceFile, d: { name: string; kind: 'function' | 'method'; decl: ts.Node }, nameStart: number, callers: Iterable<TruthCaller>): TruthDeclaration {
  const lineOf = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;
  return {
    path,
    name: d.name,
    kind: d.kind,
    line: lineOf(nameStart),
    startLine: lineOf(d.decl.getStart(sf)),
    endLine: lineOf(d.decl.getEnd()),
    callers: [...callers].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line),
  };
}
