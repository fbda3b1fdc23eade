/**
 * What a resolved TypeScript declaration is as a graph target: its name, the line of its name, and
 * whether it is something the graph has a node for (function, method, class, or a variable or field
 * holding a function). Anonymous functions (`return (c) => …`) have no name and are not targets.
 */
import ts from 'typescript';

/** A declaration as the engine sees it. */
export interface DeclTarget {
  fileName: string;
  name: string;
  /** 1-based line of the declaration's name. */
  line: number;
  decl: ts.Declaration;
}

const isFunctionValue = (e: ts.Expression | undefined): boolean => {
  while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))) e = e.expression;
  return e !== undefined && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
};

/** The named declaration a declaration stands for (a constructor stands for its class), or null. */
export function targetOf(decl: ts.Node): DeclTarget | null {
  let named: ts.Node = decl;
  if (ts.isConstructorDeclaration(decl)) named = decl.parent;
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
  const nameNode = (named as ts.NamedDeclaration).name;
  if (!nameNode || !(ts.isIdentifier(nameNode) || ts.isPrivateIdentifier(nameNode) || ts.isStringLiteral(nameNode) || ts.isNumericLiteral(nameNode))) return null;
  const sf = named.getSourceFile();
  const line = sf.getLineAndCharacterOfPosition(nameNode.getStart(sf)).line + 1;
  return { fileName: sf.fileName, name: nameNode.text, line, decl: named as ts.Declaration };
}

/** True for a member whose calls dispatch to implementations: an interface member or an abstract method. */
export function isDispatchMember(decl: ts.Declaration): boolean {
  if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl)) return ts.isInterfaceDeclaration(decl.parent);
  if (ts.isMethodDeclaration(decl) || ts.isPropertyDeclaration(decl)) {
    return (ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Abstract) !== 0;
  }
  return false;
}

/** Follows import/export aliases to the symbol they name. */
export function unalias(checker: ts.TypeChecker, sym: ts.Symbol | undefined): ts.Symbol | undefined {
  if (sym && sym.flags & ts.SymbolFlags.Alias) {
    try {
      return checker.getAliasedSymbol(sym);
    } catch {
      return sym;
    }
  }
  return sym;
}
