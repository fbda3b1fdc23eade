/**
 * What a resolved TypeScript declaration is as a graph target: its name, the line of its name, and
 * whether it is something the graph has a node for (function, method, class, or a variable or field
 * holding a function). Anonymous functions (`return (c) => …`) have no name and are not targets.
 */
import type TS from 'typescript';
import ts from './compiler.ts';

/** A declaration as the engine sees it. */
export interface DeclTarget {
  fileName: string;
  name: string;
  /** 1-based line of the declaration's name. */
  line: number;
  decl: TS.Declaration;
}

const isFunctionValue = (e: TS.Expression | undefined): boolean => {
  while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))) e = e.expression;
  return e !== undefined && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
};

/**
 * `Foo.prototype.bar = function`, `obj.bar = () => …` in a JavaScript file: methods declared by
 * assignment (the graph has nodes for them in JavaScript only). The checker's declaration is the
 * assigned property access; the graph names the method `bar`.
 */
const assignedFunction = (n: TS.Node): n is TS.PropertyAccessExpression =>
  (n.flags & ts.NodeFlags.JavaScriptFile) !== 0 &&
  ts.isPropertyAccessExpression(n) && ts.isBinaryExpression(n.parent) && n.parent.left === n && n.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken && isFunctionValue(n.parent.right);

/** The named declaration a declaration stands for (a constructor stands for its class), or null. */
export function targetOf(decl: TS.Node): DeclTarget | null {
  let named: TS.Node = decl;
  if (ts.isConstructorDeclaration(decl)) named = decl.parent;
  else if (assignedFunction(decl)) named = decl;
  else if ((ts.isArrowFunction(decl) || ts.isFunctionExpression(decl)) && ts.isBinaryExpression(decl.parent) && assignedFunction(decl.parent.left)) named = decl.parent.left;
  else if (ts.isArrowFunction(decl) || ts.isFunctionExpression(decl)) {
    if (ts.isFunctionExpression(decl) && decl.name) named = decl;
    else {
      let p = decl.parent;
      while (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression(p)) p = p.parent;
      if (ts.isVariableDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isPropertyAssignment(p)) named = p;
      else return null;
    }
  } else if (ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isPropertyAssignment(decl)) {
    if (!isFunctionValue(decl.initializer)) return null;
  } else if (
    !ts.isFunctionDeclaration(decl) &&
    !ts.isMethodDeclaration(decl) &&
    !ts.isMethodSignature(decl) &&
    !ts.isClassDeclaration(decl) &&
    !ts.isClassExpression(decl) &&
    !ts.isGetAccessorDeclaration(decl) &&
    !ts.isSetAccessorDeclaration(decl)
  ) {
    return null;
  }
  const nameNode = (named as TS.NamedDeclaration).name;
  if (!nameNode || !(ts.isIdentifier(nameNode) || ts.isPrivateIdentifier(nameNode) || ts.isStringLiteral(nameNode) || ts.isNumericLiteral(nameNode))) return null;
  const sf = named.getSourceFile();
  const line = sf.getLineAndCharacterOfPosition(nameNode.getStart(sf)).line + 1;
  return { fileName: sf.fileName, name: nameNode.text, line, decl: named as TS.Declaration };
}

/**
 * The type declaring a member whose calls may run another declaration: an interface (or object type
 * alias) member, an abstract member, or an instance method or accessor of a class, which a subclass
 * may override. Null for everything else (static, private and `#` members cannot be overridden).
 */
export function dispatchOwner(checker: TS.TypeChecker, decl: TS.Declaration): TS.Symbol | null {
  const parent = decl.parent;
  const symbolOf = (name: TS.Node | undefined): TS.Symbol | null => (name ? (checker.getSymbolAtLocation(name) ?? null) : null);
  if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl)) {
    if (ts.isInterfaceDeclaration(parent)) return symbolOf(parent.name);
    if (ts.isTypeLiteralNode(parent) && ts.isTypeAliasDeclaration(parent.parent)) return symbolOf(parent.parent.name);
    return null;
  }
  const overridable =
    ts.isMethodDeclaration(decl) || ts.isGetAccessorDeclaration(decl) || ts.isSetAccessorDeclaration(decl) || (ts.isPropertyDeclaration(decl) && (ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Abstract) !== 0);
  if (!overridable || !ts.isClassLike(parent) || (decl.name && ts.isPrivateIdentifier(decl.name))) return null;
  if (ts.getCombinedModifierFlags(decl) & (ts.ModifierFlags.Static | ts.ModifierFlags.Private)) return null;
  return symbolOf(parent.name);
}

/** Follows import/export aliases to the symbol they name. */
export function unalias(checker: TS.TypeChecker, sym: TS.Symbol | undefined): TS.Symbol | undefined {
  if (sym && sym.flags & ts.SymbolFlags.Alias) {
    try {
      return checker.getAliasedSymbol(sym);
    } catch {
      return sym;
    }
  }
  return sym;
}
