/**
 * Who implements what, per program: classes that implement an interface or extend a class, and
 * interfaces that extend interfaces, walked transitively to find the declarations a call through an
 * interface member or abstract method may dispatch to.
 */
import type TS from 'typescript';
import ts from './compiler.ts';
import { unalias } from './declarations.ts';

const isFunctionValue = (e: TS.Expression): boolean => {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return ts.isArrowFunction(e) || ts.isFunctionExpression(e);
};

/** An object literal whose type an annotation states: a typed variable, a return of a function with a declared return type, `satisfies`/`as`. */
function isAnnotatedPosition(node: TS.ObjectLiteralExpression): boolean {
  let n: TS.Node = node;
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

/** Declarations of a member that run when it is called: a method with a body, a field initialized with a function, an accessor. */
const hasBody = (d: TS.Declaration): boolean =>
  (ts.isMethodDeclaration(d) && d.body !== undefined) ||
  (ts.isPropertyDeclaration(d) && d.initializer !== undefined) ||
  ((ts.isGetAccessorDeclaration(d) || ts.isSetAccessorDeclaration(d)) && d.body !== undefined);

/** Subtype index of one program's workspace files. */
export class Implementations {
  private readonly subtypes = new Map<TS.Symbol, TS.Symbol[]>();
  /** Object literals typed as an interface by an annotation (`const x: I = {…}`, a declared return type). */
  private readonly literals = new Map<TS.Symbol, TS.ObjectLiteralExpression[]>();
  /** Answers already computed, by start type and member name: each is asked for once per program. */
  private readonly cache = new Map<TS.Symbol, Map<string, TS.Declaration[]>>();

  constructor(
    private readonly checker: TS.TypeChecker,
    files: readonly TS.SourceFile[],
  ) {
    for (const sf of files) this.scan(sf);
  }

  private scan(node: TS.Node): void {
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
      if (sym && sym.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
        let list = this.literals.get(sym);
        if (!list) this.literals.set(sym, (list = []));
        list.push(node);
      }
    }
    ts.forEachChild(node, (c) => this.scan(c));
  }

  /** True when some workspace class, interface or annotated object literal is below `sym`. */
  hasSubtypes(sym: TS.Symbol): boolean {
    return this.subtypes.has(sym) || this.literals.has(sym);
  }

  /**
   * What a call of `member` on a value of type `start` may run besides the declaration it names:
   * in every class below `start` (transitively, through `extends`/`implements`, interfaces
   * extending interfaces) the member as that class has it — declared there or inherited from any of
   * its bases, so `class C extends Base implements I` implements `I.m` with `Base.m` — and the
   * member of object literals an annotation types as one of those types. Only declarations that run
   * (a body, a function-valued field, an accessor); `start`'s own member is the call's target, not
   * an implementation.
   */
  implementationsOf(start: TS.Symbol, member: string): TS.Declaration[] {
    let byMember = this.cache.get(start);
    if (!byMember) this.cache.set(start, (byMember = new Map()));
    let out = byMember.get(member);
    if (!out) byMember.set(member, (out = this.compute(start, member)));
    return out;
  }

  private compute(start: TS.Symbol, member: string): TS.Declaration[] {
    const out = new Set<TS.Declaration>();
    const own = new Set(this.memberOf(start, member));
    const seen = new Set<TS.Symbol>();
    const queue = [start];
    while (queue.length > 0) {
      const sym = queue.shift()!;
      if (seen.has(sym)) continue;
      seen.add(sym);
      for (const lit of this.literals.get(sym) ?? []) {
        for (const p of lit.properties) {
          if (!p.name || !(ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) || p.name.text !== member) continue;
          if ((ts.isMethodDeclaration(p) && p.body) || (ts.isPropertyAssignment(p) && isFunctionValue(p.initializer))) out.add(p);
        }
      }
      if (sym !== start && sym.flags & ts.SymbolFlags.Class) {
        for (const d of this.memberOf(sym, member)) if (!own.has(d) && hasBody(d)) out.add(d);
      }
      queue.push(...(this.subtypes.get(sym) ?? []));
    }
    return [...out];
  }

  /** Declarations of `member` on instances of the type `sym` declares, inherited ones included. */
  private memberOf(sym: TS.Symbol, member: string): readonly TS.Declaration[] {
    if (member.startsWith('#')) return sym.members?.get(ts.escapeLeadingUnderscores(member))?.declarations ?? [];
    try {
      return this.checker.getPropertyOfType(this.checker.getDeclaredTypeOfSymbol(sym), member)?.declarations ?? [];
    } catch {
      return sym.members?.get(ts.escapeLeadingUnderscores(member))?.declarations ?? [];
    }
  }
}
