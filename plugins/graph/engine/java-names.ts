/**
 * The Java-only rules of name resolution: `import static` and wildcard imports that name members of
 * a class in a file of the same name, and bare calls that are implicit `this` calls of a method an
 * enclosing class declares or inherits.
 */
import { posix } from 'node:path';
import type { NodeKind } from './graph.ts';
import type { FileScope } from './file-scope.ts';
import { member } from './member-lookup.ts';
import { CLASS_LIKE, NONE, lexicalChain, type Dependencies, type NameResolution, type SymbolTables } from './resolution-tables.ts';

/**
 * java.lang's types: every Java file sees them without an import, so a simple name of one that no
 * workspace type answers (a class of that name in the package or imported wins) is the JDK's —
 * `Class<?> c; c.getName()`, `Integer.parseInt(s)` — never a same-named workspace method to guess.
 */
export const JAVA_LANG: ReadonlySet<string> = new Set([
  'Object', 'String', 'Class', 'Integer', 'Long', 'Short', 'Byte', 'Double', 'Float', 'Boolean', 'Character', 'Number',
  'Math', 'StrictMath', 'System', 'Thread', 'ThreadLocal', 'Runtime', 'StringBuilder', 'StringBuffer', 'Enum', 'Record',
  'Iterable', 'Comparable', 'Runnable', 'CharSequence', 'AutoCloseable', 'Cloneable', 'Appendable', 'Readable', 'Void',
  'ClassLoader', 'Process', 'ProcessBuilder', 'Module', 'Package', 'StackTraceElement', 'Throwable', 'Exception', 'Error',
  'RuntimeException', 'IllegalArgumentException', 'IllegalStateException', 'NullPointerException', 'UnsupportedOperationException',
  'IndexOutOfBoundsException', 'ArrayIndexOutOfBoundsException', 'StringIndexOutOfBoundsException', 'ArithmeticException',
  'ClassCastException', 'NumberFormatException', 'CloneNotSupportedException', 'InterruptedException', 'ReflectiveOperationException',
  'NoSuchFieldException', 'NoSuchMethodException', 'ClassNotFoundException', 'InstantiationException', 'IllegalAccessException',
  'SecurityException', 'AssertionError', 'OutOfMemoryError', 'StackOverflowError', 'LinkageError', 'NegativeArraySizeException',
]);

/** Members `name` of the classes named like the Java files (`Util.check` in `Util.java`). */
export function staticMembers(files: readonly string[], name: string, tables: SymbolTables, kinds: ReadonlySet<NodeKind>): number[] {
  const out: number[] = [];
  for (const f of files) {
    const cls = posix.basename(f).replace(/\.java$/, '');
    const i = tables.memberIn(f, cls, name);
    if (i >= 0 && kinds.has(tables.node(i).kind)) out.push(i);
  }
  return out;
}

/**
 * Java `pop()` inside a class: a method of the innermost enclosing class that has one, its own or
 * inherited (implicit `this`, JLS 15.12.1); only class-like scopes of the file are walked.
 */
export function inheritedMember(callee: string, caller: string | null, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  for (const q of lexicalChain(caller)) {
    const holder = tables.symbolIn(scope.path, q);
    if (holder < 0 || !CLASS_LIKE.has(tables.node(holder).kind)) continue;
    const m = member(holder, callee, tables, 1, deps);
    if (m.targets.length && tables.node(m.targets[0]).kind === 'method') return m;
  }
  return NONE;
}
