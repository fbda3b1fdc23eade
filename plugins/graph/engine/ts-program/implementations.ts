/**
 * Who implements what, per program: classes that implement an interface or extend a class, and
 * interfaces that extend interfaces, walked transitively to find the declarations a call through an
 * interface member or abstract method may dispatch to.
 */
import ts from 'typescript';
import { unalias } from './declarations.ts';

/** Subtype index of one program's workspace files. */
export class Implementations {
  private readonly subtypes = new Map<ts.Symbol, ts.Symbol[]>();

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
    ts.forEachChild(node, (c) => this.scan(c));
  }

  /** Declarations of `member` in classes below `owner` that have a body (or a function value). */
  implementationsOf(owner: ts.Symbol, member: string): ts.Declaration[] {
    const out: ts.Declaration[] = [];
    const seen = new Set<ts.Symbol>([owner]);
    const queue = [...(this.subtypes.get(owner) ?? [])];
    while (queue.length > 0) {
      const sym = queue.shift()!;
      if (seen.has(sym)) continue;
      seen.add(sym);
      const m = sym.members?.get(ts.escapeLeadingUnderscores(member));
      for (const d of m?.declarations ?? []) {
        if ((ts.isMethodDeclaration(d) && d.body) || (ts.isPropertyDeclaration(d) && d.initializer)) out.push(d);
      }
      queue.push(...(this.subtypes.get(sym) ?? []));
    }
    return out;
  }
}
