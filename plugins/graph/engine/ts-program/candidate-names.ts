/**
 * Names that can lead to a workspace declaration, collected syntactically from a program's workspace
 * files: names of functions, methods, classes and variables/fields holding functions, plus every
 * local name an import or re-export binds (an alias can name anything). A call or value whose name is
 * not in the set cannot resolve into the workspace, so the checker is never asked about it — that
 * skips most calls (`console.log`, `arr.map`, `Object.keys`) at the cost of a cheap AST walk.
 * A member access (`x.m`) can only reach a member: methods, accessors and function-valued fields
 * or properties. An imported `replace` or a workspace `function find` does not make `path.replace()`
 * or `list.find()` a candidate, unless the receiver is itself a name that can be a namespace (an
 * import binding, a namespace, a class): typing such receivers can cost seconds (a callback parameter
 * inside a large object literal is typed by resolving every enclosing call).
 */
import type TS from 'typescript';
import ts from './compiler.ts';

const isFunctionValue = (e: TS.Expression | undefined): boolean => {
  while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))) e = e.expression;
  return e !== undefined && (ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isClassExpression(e));
};

/** The name sets edge collection filters on (see the file comment). */
export interface CandidateNames {
  /** Every name that can lead into the workspace. */
  names: Set<string>;
  /** Names a member access (`x.m`) can resolve to a workspace declaration through. */
  members: Set<string>;
  /** Names that may denote a namespace-like receiver: `ns.f` may then be any workspace name. */
  qualifiers: Set<string>;
  /** Names of get/set accessors: reading or writing one runs it. */
  accessors: Set<string>;
}

/** Per parsed file (programs share parsed files through the document registry; an edit makes a new one). */
const perFile = new WeakMap<TS.SourceFile, CandidateNames>();

/** Candidate callee/value names of a program's workspace files. */
export function candidateNames(files: readonly TS.SourceFile[]): CandidateNames {
  const all: CandidateNames = { names: new Set(), members: new Set(), qualifiers: new Set(), accessors: new Set() };
  for (const sf of files) {
    let mine = perFile.get(sf);
    if (!mine) perFile.set(sf, (mine = namesOf(sf)));
    for (const key of ['names', 'members', 'qualifiers', 'accessors'] as const) for (const n of mine[key]) all[key].add(n);
  }
  return all;
}

function namesOf(sf: TS.SourceFile): CandidateNames {
  const names = new Set<string>(['constructor']);
  const members = new Set<string>(['constructor']);
  const qualifiers = new Set<string>();
  const accessors = new Set<string>();
  const textOf = (n: TS.Node | undefined): string | undefined =>
    n && (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n)) ? n.text : undefined;
  const add = (n: TS.Node | undefined, ...sets: Set<string>[]): void => {
    const text = textOf(n);
    if (text === undefined) return;
    names.add(text);
    for (const s of sets) s.add(text);
  };
  const visit = (node: TS.Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node)) add(node.name);
    else if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) add(node.name, members, qualifiers);
    else if (ts.isMethodDeclaration(node) || ts.isMethodSignature(node)) add(node.name, members);
    else if (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) {
      add(node.name, members);
      const text = textOf(node.name);
      if (text !== undefined) accessors.add(text);
    } else if (ts.isVariableDeclaration(node) && isFunctionValue(node.initializer)) add(node.name);
    else if ((ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) && isFunctionValue(node.initializer)) add(node.name, members);
    // JavaScript's assigned methods: `Foo.prototype.bar = function`, `obj.bar = () => …`.
    // …and a function copied onto an object: `exports.requireOrImport = tryImportAndRequire`.
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && (isFunctionValue(node.right) || ((ts.isIdentifier(node.right) || ts.isBinaryExpression(node.right)) && ts.isIdentifier(node.left.expression)))) add(node.left.name, members);
    else if ((ts.isPropertySignature(node) || ts.isPropertyDeclaration(node)) && node.type && ts.isFunctionTypeNode(node.type)) add(node.name, members);
    else if (ts.isImportClause(node) || ts.isNamespaceImport(node) || ts.isImportSpecifier(node) || ts.isExportSpecifier(node) || ts.isImportEqualsDeclaration(node)) {
      add(node.name, qualifiers);
    } else if (ts.isModuleDeclaration(node) || ts.isEnumDeclaration(node)) {
      const text = textOf(node.name);
      if (text !== undefined) qualifiers.add(text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { names, members, qualifiers, accessors };
}
