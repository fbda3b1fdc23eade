/**
 * Ground truth for JavaScript callers: the TypeScript checker over the repository's .js/.mjs/.cjs
 * files (allowJs, its own inference; no tsconfig needed), find-references at each declaration's name,
 * keeping the references that call it (call, `new`, tagged template).
 * Declarations: function declarations, functions bound to a variable (`const`/`let`/`var`), class
 * methods, and the forms JavaScript declares methods with outside a class: `Foo.prototype.bar =
 * function` (`Foo.bar`), `obj.bar = function` at a module's top level (`obj.bar`), `exports.bar =
 * function` / `module.exports.bar = function` (the function `bar`). The call hierarchy knows none of
 * the assigned forms, so references are used for every declaration alike. A declaration the checker
 * holds no symbol for (a method assigned on an `any` value: `res = Object.create(http.ServerResponse
 * .prototype)`) has no answer and is left out. The caller is the innermost of these declarations
 * around the call, else the file.
 * Run through bench/quality/truth.ts, never directly.
 */
import path from 'node:path';
import ts from 'typescript';
import type { TruthCaller, TruthDeclaration } from '../truth-format.ts';
import { findToken, languageServiceOver, truthDeclaration } from './ts-service.ts';

interface Declared {
  name: string;
  kind: 'function' | 'method';
  /** Where find-references is asked (the name as written). */
  nameNode: ts.Node;
  /** The span a call inside belongs to. */
  decl: ts.Node;
}

const isFunctionValue = (n: ts.Node | undefined): boolean => n !== undefined && (ts.isFunctionExpression(n) || ts.isArrowFunction(n));

/** A top-level statement's assigned method: `X.prototype.m = f`, `obj.m = f`, `exports.m = f`, `module.exports.m = f`. */
function assignedMethod(node: ts.Node, topLevel: boolean): Declared | null {
  if (!ts.isBinaryExpression(node) || node.operatorToken.kind !== ts.SyntaxKind.EqualsToken || !isFunctionValue(node.right)) return null;
  const left = node.left;
  if (!ts.isPropertyAccessExpression(left) || !ts.isIdentifier(left.name)) return null;
  const target = left.expression;
  const decl = ts.isExpressionStatement(node.parent) ? node.parent : node;
  if (ts.isPropertyAccessExpression(target) && target.name.text === 'prototype' && ts.isIdentifier(target.expression)) {
    return { name: `${target.expression.text}.${left.name.text}`, kind: 'method', nameNode: left.name, decl };
  }
  if (!topLevel) return null;
  const exportsObject = (ts.isIdentifier(target) && target.text === 'exports') || (ts.isPropertyAccessExpression(target) && ts.isIdentifier(target.expression) && target.expression.text === 'module' && target.name.text === 'exports');
  if (exportsObject) return { name: left.name.text, kind: 'function', nameNode: left.name, decl };
  if (ts.isIdentifier(target) && target.text !== 'module') return { name: `${target.text}.${left.name.text}`, kind: 'method', nameNode: left.name, decl };
  return null;
}

/** Every declaration of one file (nested ones too), outer first. */
function declarationsOf(sf: ts.SourceFile): Declared[] {
  const out: Declared[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name && node.body) {
      out.push({ name: node.name.text, kind: 'function', nameNode: node.name, decl: node });
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && isFunctionValue(node.initializer)) {
      out.push({ name: node.name.text, kind: 'function', nameNode: node.name, decl: node });
    } else if (ts.isMethodDeclaration(node) && node.body && ts.isClassLike(node.parent) && ts.isIdentifier(node.name)) {
      const owner = node.parent.name?.text ?? (ts.isVariableDeclaration(node.parent.parent) && ts.isIdentifier(node.parent.parent.name) ? node.parent.parent.name.text : '(anonymous)');
      out.push({ name: `${owner}.${node.name.text}`, kind: 'method', nameNode: node.name, decl: node });
    } else if (ts.isBinaryExpression(node)) {
      const topLevel = ts.isExpressionStatement(node.parent) && ts.isSourceFile(node.parent.parent);
      const assigned = assignedMethod(node, topLevel);
      if (assigned) out.push(assigned);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Whether a name is what a call, `new` or tagged template invokes (`a.b.m` in `a.b.m()`, `m.call(…)`). */
function isCallee(token: ts.Node): boolean {
  let node = token;
  while ((ts.isPropertyAccessExpression(node.parent) && node.parent.name === node) || ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const p = node.parent;
  if ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.expression === node) return true;
  if (ts.isTaggedTemplateExpression(p) && p.tag === node) return true;
  // `f.call(this, …)` / `f.apply(…)` run f; `f.bind(this)` makes the function f is called through
  // (TypeScript's call hierarchy lists all three, as in the TypeScript truth).
  return ts.isPropertyAccessExpression(p) && p.expression === node && ['call', 'apply', 'bind'].includes(p.name.text) && ts.isCallExpression(p.parent) && p.parent.expression === p;
}

/**
 * The variable a reference initialises as an alias: `var f = require('./utils').f` or `const f =
 * utils.f` (the checker's find-references stops at such a copy; an ES import is followed already).
 */
function aliasVariable(token: ts.Node): ts.Identifier | null {
  const access = token.parent;
  if (!ts.isPropertyAccessExpression(access) || access.name !== token) return null;
  const decl = access.parent;
  return ts.isVariableDeclaration(decl) && decl.initializer === access && ts.isIdentifier(decl.name) ? decl.name : null;
}

/** A language service over the JavaScript files under root. */
function languageService(root: string): { service: ts.LanguageService; files: string[] } {
  const files = ts.sys.readDirectory(root, ['.js', '.mjs', '.cjs', '.jsx'], ['**/node_modules/**'], undefined);
  const options: ts.CompilerOptions = { allowJs: true, checkJs: false, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, types: [], maxNodeModuleJsDepth: 0 };
  return { service: languageServiceOver(root, files, options), files };
}

/** Computes the callers of every declaration under `scope` (a directory relative to root, '' for all). */
export function jsCallers(root: string, scope: string): TruthDeclaration[] {
  const { service, files } = languageService(root);
  const program = service.getProgram()!;
  const rel = (f: string): string => path.relative(root, f).split(path.sep).join('/');
  const inScope = (f: string): boolean => !rel(f).startsWith('..') && !rel(f).split('/').includes('node_modules') && (scope === '' || rel(f).startsWith(scope + '/'));
  const lineOf = (sf: ts.SourceFile, pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const declared = new Map<string, Declared[]>();
  const declarationsIn = (file: string): Declared[] => {
    let list = declared.get(file);
    if (!list) declared.set(file, (list = declarationsOf(program.getSourceFile(file)!)));
    return list;
  };
  /** The innermost declaration of the file holding `pos`, or the file. */
  const callerAt = (file: string, pos: number): TruthCaller => {
    const sf = program.getSourceFile(file)!;
    let best: Declared | null = null;
    for (const d of declarationsIn(file)) {
      if (d.decl.getStart(sf) <= pos && pos < d.decl.getEnd() && (!best || d.decl.getStart(sf) >= best.decl.getStart(sf))) best = d;
    }
    return best ? { path: rel(file), name: best.name, line: lineOf(sf, best.nameNode.getStart(sf)) } : { path: rel(file), name: null, line: 0 };
  };
  const out: TruthDeclaration[] = [];
  for (const file of files.filter(inScope).sort()) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const d of declarationsIn(file)) {
      const start = d.nameNode.getStart(sf);
      const refs = service.findReferences(file, start);
      if (!refs || refs.length === 0) continue; // no symbol: the checker cannot answer for it
      const callers = new Map<string, TruthCaller>();
      const visitRefs = (groups: readonly ts.ReferencedSymbol[], followAliases: boolean): void => {
        for (const group of groups) {
          for (const r of group.references) {
            if (r.isWriteAccess) continue;
            const rsf = program.getSourceFile(r.fileName);
            if (!rsf || !inScope(r.fileName)) continue;
            const token = findToken(rsf, r.textSpan.start);
            if (!token) continue;
            const alias = followAliases ? aliasVariable(token) : null;
            if (alias) visitRefs(service.findReferences(r.fileName, alias.getStart(rsf)) ?? [], false);
            if (!isCallee(token)) continue;
            const caller = callerAt(r.fileName, r.textSpan.start);
            callers.set(`${caller.path}:${caller.line}`, caller);
          }
        }
      };
      visitRefs(refs, true);
      out.push(truthDeclaration(rel(file), sf, d, start, callers.values()));
    }
  }
  return out;
}

/** The tool and version that produced the answers. */
export const jsTool = (): string => `typescript ${ts.version} LanguageService find-references over JavaScript (allowJs), call sites only`;
