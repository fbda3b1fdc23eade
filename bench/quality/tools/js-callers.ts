/**
 * Ground truth for JavaScript callers: the TypeScript checker over the repository's .js/.mjs/.cjs
 * files (allowJs, its own inference, bundler resolution so a `require` of an ES module resolves as
 * Node ≥ 22 runs it; no tsconfig needed): find-references at each declaration's name, keeping the
 * references that call it (call, `new`, tagged template, `f.call/apply/bind`), together with every
 * call site whose callee symbol the checker resolves (through import and require aliases) to it.
 * A copy of the declaration into a local (`const { f } = require('./m')`, `var f = require('./m').f`)
 * is followed one step: the checker's find-references stops at such a copy.
 * Declarations: function declarations, functions bound to a variable (`const`/`let`/`var`), class
 * methods, and the forms JavaScript declares methods with outside a class: `Foo.prototype.bar =
 * function` (`Foo.bar`), `obj.bar = function` at a module's top level (`obj.bar`), `exports.bar =
 * function` / `module.exports.bar = function` (the function `bar`), the functions of an object literal
 * assigned to `Foo.prototype` (`Foo.bar`) or to `module.exports` (`bar`). The call hierarchy knows none of
 * the assigned forms, so references are used for every declaration alike. A declaration the checker
 * holds no symbol for (a method assigned on an `any` value: `res = Object.create(http.ServerResponse
 * .prototype)`) has no answer and is left out. The caller is the innermost of these declarations
 * around the call — or the class for code in its constructor or fields, or the object-literal function
 * it sits in, as the call hierarchy reports them — else the file.
 * Run through bench/quality/truth.ts, never directly.
 */
import path from 'node:path';
import ts from 'typescript';
import type { TruthCaller, TruthDeclaration } from '../truth-format.ts';
import { reachesDeclaration, supertypeSymbols } from './ts-callers.ts';
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

/** `Foo.prototype = {…}` → `Foo.`, `module.exports = {…}` → ``: the prefix an object literal's functions are declared under, or null. */
function declaringObject(obj: ts.Node): string | null {
  const assign = obj.parent;
  if (!ts.isObjectLiteralExpression(obj) || !ts.isBinaryExpression(assign) || assign.right !== obj || assign.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return null;
  const left = assign.left;
  if (!ts.isPropertyAccessExpression(left) || !ts.isIdentifier(left.expression)) return null;
  if (left.name.text === 'prototype') return `${left.expression.text}.`;
  const topLevel = ts.isExpressionStatement(assign.parent) && ts.isSourceFile(assign.parent.parent);
  return topLevel && left.expression.text === 'module' && left.name.text === 'exports' ? '' : null;
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
    } else if ((ts.isMethodDeclaration(node) || (ts.isPropertyAssignment(node) && isFunctionValue(node.initializer))) && ts.isIdentifier(node.name) && declaringObject(node.parent) !== null) {
      const prefix = declaringObject(node.parent)!;
      out.push({ name: `${prefix}${node.name.text}`, kind: prefix === '' ? 'function' : 'method', nameNode: node.name, decl: node });
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
  if (!token.parent) return false;
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
  // `const { f, g: h } = require('./m')`: the destructured local.
  const element = token.parent;
  if (element && ts.isBindingElement(element) && ts.isObjectBindingPattern(element.parent) && ts.isIdentifier(element.name) && (element.name === token || element.propertyName === token)) return element.name;
  const access = token.parent;
  if (!access || !ts.isPropertyAccessExpression(access) || access.name !== token) return null;
  const decl = access.parent;
  return ts.isVariableDeclaration(decl) && decl.initializer === access && ts.isIdentifier(decl.name) ? decl.name : null;
}

/** A code span a call can sit in: a declaration, or a class (its constructor, fields) or object-literal function. */
interface Container {
  name: string;
  nameNode: ts.Node;
  decl: ts.Node;
}

/**
 * What a call inside reports as its caller besides the declarations: a named class (code in its
 * constructor and field initialisers, as the call hierarchy reports it) and a function in an object
 * literal (`{ beforeRun() {…} }`, `{ get: function () {…} }`), as the call hierarchy lists them.
 */
function containersOf(sf: ts.SourceFile, declarations: readonly Declared[]): Container[] {
  const out: Container[] = [...declarations];
  const declared = new Set(declarations.map((d) => d.decl));
  const visit = (node: ts.Node): void => {
    if (declared.has(node)) {
      ts.forEachChild(node, visit);
      return;
    }
    if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name) out.push({ name: node.name.text, nameNode: node.name, decl: node });
    else if ((ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent) && ts.isIdentifier(node.name)) out.push({ name: node.name.text, nameNode: node.name, decl: node });
    else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && isFunctionValue(node.initializer)) out.push({ name: node.name.text, nameNode: node.name, decl: node });
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The name node a call invokes: `f` in `f()`, `m` in `a.b.m()`, `f` in `f.call(…)`. */
function calleeName(call: ts.CallExpression | ts.NewExpression | ts.TaggedTemplateExpression): ts.Node {
  let e: ts.Expression = ts.isTaggedTemplateExpression(call) ? call.tag : call.expression;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (ts.isPropertyAccessExpression(e) && ts.isCallExpression(call) && ['call', 'apply', 'bind'].includes(e.name.text)) e = e.expression;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return ts.isPropertyAccessExpression(e) ? e.name : e;
}

/** A language service over the JavaScript files under root. */
function languageService(root: string): { service: ts.LanguageService; files: string[] } {
  const files = ts.sys.readDirectory(root, ['.js', '.mjs', '.cjs', '.jsx'], ['**/node_modules/**'], undefined);
  const options: ts.CompilerOptions = { allowJs: true, checkJs: false, noEmit: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, types: [], maxNodeModuleJsDepth: 0 };
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
  const contained = new Map<string, Container[]>();
  const containersIn = (file: string): Container[] => {
    let list = contained.get(file);
    if (!list) contained.set(file, (list = containersOf(program.getSourceFile(file)!, declarationsIn(file))));
    return list;
  };
  /** The innermost declaration (or class, or object-literal function) of the file holding `pos`, or the file. */
  const callerAt = (file: string, pos: number): TruthCaller => {
    const sf = program.getSourceFile(file)!;
    let best: Container | null = null;
    for (const d of containersIn(file)) {
      if (d.decl.getStart(sf) <= pos && pos < d.decl.getEnd() && (!best || d.decl.getStart(sf) >= best.decl.getStart(sf))) best = d;
    }
    return best ? { path: rel(file), name: best.name, line: lineOf(sf, best.nameNode.getStart(sf)) } : { path: rel(file), name: null, line: 0 };
  };
  // Second source: every call site in scope whose callee the checker resolves (through import and
  // require aliases) to a declaration. Find-references misses a `require` of an ES module's export.
  const checker = program.getTypeChecker();
  const byNode = new Map<ts.Node, TruthCaller[]>();
  const sourceFiles = files.filter(inScope).sort();
  for (const file of sourceFiles) for (const d of declarationsIn(file)) byNode.set(d.nameNode.parent, []);
  for (const file of sourceFiles) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node)) {
        let sym = checker.getSymbolAtLocation(calleeName(node));
        for (let hops = 0; sym && sym.flags & ts.SymbolFlags.Alias && hops < 8; hops++) sym = checker.getAliasedSymbol(sym);
        for (const d of sym?.declarations ?? []) byNode.get(d)?.push(callerAt(file, calleeName(node).getStart(sf)));
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  const out: TruthDeclaration[] = [];
  for (const file of sourceFiles) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const d of declarationsIn(file)) {
      const start = d.nameNode.getStart(sf);
      const refs = service.findReferences(file, start);
      if (!refs || refs.length === 0) continue; // no symbol: the checker cannot answer for it
      const callers = new Map<string, TruthCaller>();
      for (const caller of byNode.get(d.nameNode.parent) ?? []) callers.set(`${caller.path}:${caller.line}`, caller);
      // Find-references groups a method with the members it overrides or shares a base with: a site
      // naming another member is a dispatch caller, reachable when that member is one of a supertype.
      const cls = ts.isMethodDeclaration(d.decl) && ts.isClassLike(d.decl.parent) ? d.decl.parent : null;
      const supertypes = cls ? supertypeSymbols(checker, cls) : null;
      const add = (caller: TruthCaller, rsf: ts.SourceFile, token: ts.Node): void => {
        const key = `${caller.path}:${caller.line}`;
        let sym = checker.getSymbolAtLocation(token);
        for (let hops = 0; sym && sym.flags & ts.SymbolFlags.Alias && hops < 8; hops++) sym = checker.getAliasedSymbol(sym);
        const direct = sym?.declarations?.includes(d.nameNode.parent as ts.Declaration) ?? false;
        const before = callers.get(key);
        if (direct || (before !== undefined && !before.dispatch)) {
          callers.set(key, caller);
          return;
        }
        const reachable = before?.reachable === true || reachesDeclaration(checker, rsf, token.getStart(rsf), d.decl, supertypes);
        callers.set(key, { ...caller, dispatch: true, reachable });
      };
      const visitRefs = (groups: readonly ts.ReferencedSymbol[], followAliases: boolean): void => {
        for (const group of groups) {
          for (const r of group.references) {
            const rsf = program.getSourceFile(r.fileName);
            if (!rsf || !inScope(r.fileName)) continue;
            const token = findToken(rsf, r.textSpan.start);
            if (!token) continue;
            const alias = followAliases ? aliasVariable(token) : null;
            if (alias) visitRefs(service.findReferences(r.fileName, alias.getStart(rsf)) ?? [], false);
            if (r.isWriteAccess || !isCallee(token)) continue;
            add(callerAt(r.fileName, r.textSpan.start), rsf, token);
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
export const jsTool = (): string => `typescript ${ts.version} over JavaScript (allowJs, bundler resolution): find-references at each declaration plus every call site's resolved symbol, call sites only`;
