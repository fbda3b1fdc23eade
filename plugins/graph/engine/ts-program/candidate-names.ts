/**
 * Names that can lead to a workspace declaration, collected syntactically from a program's workspace
 * files: names of functions, methods, classes and variables/fields holding functions, plus every
 * local name an import or re-export binds (an alias can name anything). A call or value whose name is
 * not in the set cannot resolve into the workspace, so the checker is never asked about it — that
 * skips most calls (`console.log`, `arr.map`, `Object.keys`) at the cost of a cheap AST walk.
 */
import ts from 'typescript';

const isFunctionValue = (e: ts.Expression | undefined): boolean => {
  while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))) e = e.expression;
  return e !== undefined && (ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isClassExpression(e));
};

/** Candidate callee/value names of a program's workspace files, and the names of get/set accessors (reading one runs it). */
export function candidateNames(files: readonly ts.SourceFile[]): { names: Set<string>; accessors: Set<string> } {
  const names = new Set<string>(['constructor']);
  const accessors = new Set<string>();
  const add = (n: ts.Node | undefined): void => {
    if (n && (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n))) names.add(n.text);
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isMethodSignature(node) ||
      ts.isClassDeclaration(node) ||
      ts.isClassExpression(node) ||
      ts.isFunctionExpression(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)
    ) {
      add(node.name);
      if ((ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name))) accessors.add(node.name.text);
    } else if ((ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) && isFunctionValue(node.initializer)) {
      add(node.name);
    } else if (ts.isPropertySignature(node) && node.type && ts.isFunctionTypeNode(node.type)) {
      add(node.name);
    } else if (ts.isImportClause(node) || ts.isNamespaceImport(node) || ts.isImportSpecifier(node) || ts.isExportSpecifier(node) || ts.isImportEqualsDeclaration(node)) {
      add(node.name);
    }
    ts.forEachChild(node, visit);
  };
  for (const sf of files) visit(sf);
  return { names, accessors };
}
