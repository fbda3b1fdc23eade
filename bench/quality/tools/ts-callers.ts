/**
 * Ground truth for TypeScript callers: the TypeScript LanguageService call hierarchy
 * (prepareCallHierarchy + provideCallHierarchyIncomingCalls) over the repository's own tsconfig.
 * Declarations are functions (declarations and `const f = () =>` / function expressions bound to a
 * `const` name; the call hierarchy answers nothing for one held by `let`/`var`) and class methods with a body (overload signatures, abstract and interface members are not
 * declarations of their own); callers are the enclosing named declaration the checker reports, or the
 * file for top-level code. A caller reached only through another member the checker relates
 * (find-references shares a root member) is `dispatch`; it is `reachable` when the member its call
 * resolves to is declared by a class or interface the declaration's class is or derives from, else
 * the call names a sibling implementation (or the site only reads the method as a value) and cannot
 * run this declaration.
 * Run through bench/quality/truth.ts, never directly.
 */
import path from 'node:path';
import ts from 'typescript';
import type { TruthCaller, TruthDeclaration } from '../truth-format.ts';
import { findToken, languageServiceOver, truthDeclaration } from './ts-service.ts';

/** Loads the project's tsconfig (following `extends`) and returns a LanguageService over its files. */
function languageService(root: string): { service: ts.LanguageService; files: string[] } {
  const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json');
  if (!configPath) throw new Error(`no tsconfig.json under ${root}`);
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath));
  // `types: ["node"]` would fail without @types/node in the extracted repository; it only types globals.
  const options: ts.CompilerOptions = { ...parsed.options, types: [], noEmit: true };
  const files = parsed.fileNames;
  return { service: languageServiceOver(root, files, options), files };
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
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer)) && (ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const) !== 0) {
      // Only `const`: the call hierarchy has no items for a function held by `let`/`var` (it could be reassigned), so their callers are unknown here.
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

/** The class (declaration or expression) a method belongs to, or null for an object-literal method. */
function classOf(decl: ts.Node): ts.ClassLikeDeclaration | null {
  return ts.isMethodDeclaration(decl) && ts.isClassLike(decl.parent) ? decl.parent : null;
}

/** The symbol of a class, interface or type literal (a class expression has no name to ask about). */
function symbolOfType(checker: ts.TypeChecker, node: ts.Node): ts.Symbol | undefined {
  const name = (node as ts.ClassLikeDeclaration | ts.InterfaceDeclaration).name;
  return name ? checker.getSymbolAtLocation(name) : checker.getTypeAtLocation(node).getSymbol();
}

/** The generic declaration behind an instantiation (`Expression<T>` -> `Expression`), for getBaseTypes. */
const declaredType = (t: ts.Type): ts.Type => ((t as ts.TypeReference).target ?? t);

/**
 * Symbols of every class and interface `cls` is or derives from: its own, the `extends` chain
 * (getBaseTypes) and the `implements` clauses of each class on the way, transitively.
 */
export function supertypeSymbols(checker: ts.TypeChecker, cls: ts.ClassLikeDeclaration): Set<ts.Symbol> {
  const out = new Set<ts.Symbol>();
  const own = symbolOfType(checker, cls);
  const queue: ts.Type[] = own ? [checker.getDeclaredTypeOfSymbol(own)] : [];
  while (queue.length) {
    const t = declaredType(queue.pop()!);
    const sym = t.getSymbol();
    if (!sym || out.has(sym)) continue;
    out.add(sym);
    if (t.flags & ts.TypeFlags.Object && (t as ts.ObjectType).objectFlags & ts.ObjectFlags.ClassOrInterface) queue.push(...checker.getBaseTypes(t as ts.InterfaceType));
    for (const d of sym.declarations ?? []) {
      if (!ts.isClassLike(d)) continue;
      for (const clause of d.heritageClauses ?? []) {
        if (clause.token === ts.SyntaxKind.ImplementsKeyword) for (const node of clause.types) queue.push(checker.getTypeAtLocation(node));
      }
    }
  }
  return out;
}

/**
 * Whether the call whose callee name is at `pos` can run `decl`: the member it resolves to is
 * declared by a class or interface `decl`'s class is or derives from (a sibling implementation of a
 * shared interface, or an override in a subclass, cannot). A member of an object type that is no
 * class or interface (a type literal) counts when the class is assignable to that type.
 */
export function reachesDeclaration(checker: ts.TypeChecker, sf: ts.SourceFile, pos: number, decl: ts.Node, supertypes: Set<ts.Symbol> | null): boolean {
  const token = findToken(sf, pos);
  const cls = classOf(decl);
  if (!token || !cls || !supertypes) return false;
  // Reading the method as a value (`this.visitX.bind(this)`, `const h = conn.cancelQuery`) runs nothing.
  if (!isCallee(token)) return false;
  const symbol = checker.getSymbolAtLocation(token);
  // A union receiver's member is a synthetic symbol whose declarations are the constituents' members.
  for (const member of symbol?.declarations ?? []) {
    const owner = member.parent;
    const ownerSymbol = ts.isClassLike(owner) || ts.isInterfaceDeclaration(owner) || ts.isTypeLiteralNode(owner) ? symbolOfType(checker, owner) : undefined;
    if (ownerSymbol && supertypes.has(ownerSymbol)) return true;
    if (!ts.isTypeLiteralNode(owner)) continue;
    const clsSymbol = symbolOfType(checker, cls);
    if (clsSymbol && checker.isTypeAssignableTo(checker.getDeclaredTypeOfSymbol(clsSymbol), checker.getTypeAtLocation(owner))) return true;
  }
  return false;
}

/** Whether a name is what a call, `new`, tagged template or decorator invokes (`a.b.m` in `a.b.m()`). */
function isCallee(token: ts.Node): boolean {
  let node = token;
  while ((ts.isPropertyAccessExpression(node.parent) && node.parent.name === node) || (ts.isElementAccessExpression(node.parent) && node.parent.argumentExpression === node) || ts.isParenthesizedExpression(node.parent) || ts.isNonNullExpression(node.parent)) node = node.parent;
  const p = node.parent;
  return ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.expression === node) || (ts.isTaggedTemplateExpression(p) && p.tag === node) || ts.isDecorator(p);
}

/** Computes the callers of every declaration under `scope` (a directory relative to root, '' for all). */
export function tsCallers(root: string, scope: string): TruthDeclaration[] {
  const { service, files } = languageService(root);
  const program = service.getProgram()!;
  const checker = program.getTypeChecker();
  const rel = (f: string): string => path.relative(root, f).split(path.sep).join('/');
  const inScope = (f: string): boolean => !f.endsWith('.d.ts') && !rel(f).startsWith('..') && !rel(f).split('/').includes('node_modules') && (scope === '' || rel(f).startsWith(scope + '/'));
  // Every source file of the program, not only the config's list: a tsconfig may name just the entry
  // points (`"files": ["src/index.ts"]`) and reach the rest through imports.
  const programFiles = new Set([...files, ...program.getSourceFiles().map((sf) => sf.fileName)]);
  const out: TruthDeclaration[] = [];
  for (const file of [...programFiles].filter(inScope).sort()) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const d of declarationsOf(sf)) {
      const start = d.nameNode.getStart(sf);
      const items = service.prepareCallHierarchy(file, start);
      const item = Array.isArray(items) ? items[0] : items;
      const callers = new Map<string, TruthCaller>();
      const cls = classOf(d.decl);
      const supertypes = item && cls ? supertypeSymbols(checker, cls) : null;
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
          // One site naming this declaration makes the caller direct, whatever its other sites say;
          // one site that can reach it makes a dispatch caller reachable.
          const before = callers.get(key);
          const dispatchOnly = !direct && before?.dispatch !== false;
          const reachable = dispatchOnly && (before?.reachable === true || call.fromSpans.some((span) => reachesDeclaration(checker, fromSf, span.start, d.decl, supertypes)));
          callers.set(key, { ...caller, ...(dispatchOnly ? { dispatch: true, reachable } : {}) });
        }
      }
      out.push(truthDeclaration(rel(file), sf, d, start, callers.values()));
    }
  }
  return out;
}

/** The tool and version that produced the answers. */
export const tsTool = (): string => `typescript ${ts.version} LanguageService call hierarchy (incoming calls), dispatch callers marked reachable by the checker's class/interface hierarchy`;
