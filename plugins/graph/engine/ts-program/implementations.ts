/**
 * Who implements what, per program: classes that implement an interface or extend a class, and
 * interfaces that extend interfaces, walked transitively to find the declarations a call through an
 * interface member or abstract method may dispatch to.
 */
import ts from 'typescript';
import { unalias } from './declarations.ts';

const isFunctionValue = (e: ts.Expression): boolean => {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return ts.isArrowFunction(e) || ts.isFunctionExpression(e);
};

/** An object literal whose type an annotation states: a typed variable, a return of a function with a declared return type, `satisfies`/`as`. */
function isAnnotatedPosition(node: ts.ObjectLiteralExpression): boolean {
  let n: ts.Node = node;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  const p = n.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyDeclaration(p)) return p.type !== undefined;
  if (ts.isSatisfiesExpression(p) || ts.isAsExpression(p)) return true;
  if (ts.isReturnStatement(p)) {
    const fn = ts.findAncestor(p, ts.isFunctionLike);
    return fn !== undefined && fn.type !== undefined;
  }
  if (ts.isArrowFunction(p) && p.body === n) return p.type !== undefined;
  return false;
}

/** Subtype index of one program's workspace files. */
export class Implementations {
  private readonly subtypes = new Map<ts.Symbol, ts.Symbol[]>();
  /** Object literals typed as an interface by an annotation (`const x: I = {…}`, a declared return type). */
  private readonly literals = new Map<ts.Symbol, ts.ObjectLiteralExpression[]>();

  constructor(
    private readonly checker: ts.TypeChecker,
    files: readonly ts.SourceFile[],
  ) {
    for (const sf of files) this.scan(sf);
  }

  private scan(node: ts.Node): void {
    if ((ts.isClassLike(node) || ts.isInterfaceDeclaration(node)) && node.heritageClauses) {
      const self = node.name ? this.checker.getSymbolAtLocation(node.name) : undefined;
      if (self) {
        for (const clause of node.heritageClauses) {
          for (const t of clause.types) {
            const parent = unalias(this.checker, this.checker.getSymbolAtLocation(t.expression));
            if (!parent) continue;
            let list = this.subtypes.get(parent);
            if (!list) this.subtypes.set(parent, (list = []));
            list.push(self);
          }
        }
      }
    }
    if (ts.isObjectLiteralExpression(node) && isAnnotatedPosition(node)) {
      // Only where an annotation gives the type: asking for an argument's contextual type would
      // resolve the call's overloads, which can cost seconds on type-heavy code.
      const type = this.checker.getContextualType(node);
      const sym = type?.aliasSymbol ?? type?.getSymbol();
      if (sym && sym.flags & ts.SymbolFlags.Interface) {
        let list = this.literals.get(sym);
        if (!list) this.literals.set(sym, (list = []));
        list.push(node);
      }
    }
    ts.forEachChild(node, (c) => this.scan(c));
  }

  /** Declarations of `member` in classes (and annotated object literals) below `owner` that have a body or a function value. */
  implementationsOf(owner: ts.Symbol, member: string): ts.Declaration[] {
    const out: ts.Declaration[] = [];
    const seen = new Set<ts.Symbol>();
    const queue = [owner];
    while (queue.length > 0) {
      const sym = queue.shift()!;
      if (seen.has(sym)) continue;
      seen.add(sym);
      for (const lit of this.literals.get(sym) ?? []) {
        for (const p of lit.properties) {
          if (!p.name || !(ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) || p.name.text !== member) continue;
          if ((ts.isMethodDeclaration(p) && p.body) || (ts.isPropertyAssignment(p) && isFunctionValue(p.initializer))) out.push(p);
        }
      }
      if (sym === owner) {
        queue.push(...(this.subtypes.get(sym) ?? []));
        continue;
      }
      const m = sym.members?.get(ts.escapeLeadingUnderscores(member));
      for (const d of m?.declarations ?? []) {
        if ((ts.isMethodDeclaration(d) && d.body) || (ts.isPropertyDeclaration(d) && d.initializer)) out.push(d);
      }
      queue.push(...(this.subtypes.get(sym) ?? []));
    }
    return out;
  }
}
