/**
 * Members of classes: the class enclosing a caller, a member found through a class and its
 * ancestors (and, for Go, the other files of its package), and the dependencies such a walk adds
 * (the member name and every class walked, whose parents may be re-resolved).
 */
import { dirOf } from './resolve.ts';
import { CLASS_LIKE, NONE, lexicalChain, type Dependencies, type NameResolution, type SymbolTables } from './resolution-tables.ts';

/** The class-like symbol enclosing a caller, by walking its qualified name up. */
export function enclosingClass(path: string, caller: string | null, tables: SymbolTables): number {
  for (const q of lexicalChain(caller)) {
    const i = tables.symbolIn(path, q);
    if (i >= 0 && CLASS_LIKE.has(tables.node(i).kind)) return i;
  }
  return -1;
}

/** A member `name` of a class node or of its ancestors (bounded depth), or -1; `walked` collects the classes visited. */
export function memberOf(classIdx: number, name: string, tables: SymbolTables, walked: number[] = [], depth = 0): number {
  if (walked.includes(classIdx) || depth > 4) return -1;
  walked.push(classIdx);
  const cls = tables.node(classIdx);
  const prefix = cls.qualifiedName ?? '';
  const hit = tables.memberIn(cls.path, prefix, name);
  if (hit >= 0) return hit;
  if (cls.language === 'go' && !prefix.includes('.')) {
    // Go methods may be declared in any file of the type's package.
    for (const f of tables.filesInDir(dirOf(cls.path))) {
      const m = f !== cls.path && f.endsWith('.go') ? tables.memberIn(f, prefix, name) : -1;
      if (m >= 0) return m;
    }
  }
  for (const p of tables.parentsOf(classIdx)) {
    const h = memberOf(p, name, tables, walked, depth + 1);
    if (h >= 0) return h;
  }
  return -1;
}

/**
 * A member lookup's answer. Once it leaves the class's own file (or the class has parents), it
 * depends on the member name and on every class walked (their parents may be re-resolved).
 */
export function member(classIdx: number, name: string, tables: SymbolTables, confidence: number, deps: Dependencies): NameResolution {
  const walked: number[] = [];
  const m = memberOf(classIdx, name, tables, walked);
  const cls = tables.node(classIdx);
  const local = walked.length === 1 && tables.parentsOf(classIdx).length === 0 && cls.language !== 'go' && (m < 0 || tables.node(m).path === cls.path);
  if (!local) {
    deps.push(name);
    for (const c of walked) deps.push(tables.node(c).label);
  }
  return m < 0 ? NONE : { targets: [m], confidence };
}

/** Whether `test` holds for a class-like node or one of its workspace ancestors (at most five classes; cycles cut). */
export function classOrAncestor(cls: number, tables: SymbolTables, test: (cls: number) => boolean, seen: number[] = []): boolean {
  if (seen.includes(cls) || seen.length > 4) return false;
  seen.push(cls);
  return test(cls) || tables.parentsOf(cls).some((p) => classOrAncestor(p, tables, test, seen));
}
