/**
 * The static type (as written) of a Java call's argument, so resolve-overloads.ts can tell overloads
 * apart: a declared local, parameter or field; an array element; an instance of a workspace class;
 * a field read of another object or class (`Constants.COMMA`, declared `String`); the result of a
 * workspace method or of a common JDK method. Undefined when nothing says: the caller then keeps
 * every overload the argument count allows.
 */
import { JAVA_LANG } from './java-names.ts';
import { findBinding, receiverType, type ReceiverContext } from './resolve-receivers.ts';

const IDENT = /^[\p{ID_Start}_$][\p{ID_Continue}$]*$/u;

/** Result types of JDK methods common enough to type an argument by (`value.toString()`, `n.intValue()`), whatever the receiver. */
const JDK_RESULTS: Readonly<Record<string, string>> = {
  toString: 'String', name: 'String', getName: 'String', getSimpleName: 'String', toLowerCase: 'String', toUpperCase: 'String',
  trim: 'String', strip: 'String', substring: 'String', toExternalForm: 'String', getMessage: 'String',
  byteValue: 'byte', shortValue: 'short', intValue: 'int', longValue: 'long', floatValue: 'float', doubleValue: 'double',
  booleanValue: 'boolean', charValue: 'char', length: 'int', size: 'int', hashCode: 'int', ordinal: 'int',
  toPath: 'Path', toFile: 'File', toURI: 'URI', toCharArray: 'char[]', getBytes: 'byte[]', getDeclaringClass: 'Class', getEnclosingClass: 'Class',
  getClass: 'Class', equals: 'boolean', isEmpty: 'boolean', contains: 'boolean', startsWith: 'boolean', endsWith: 'boolean',
};

/**
 * Results of JDK methods whose result depends on the receiver's class (`atomicInteger.get()` is an
 * `int`, `list.get(i)` is not), keyed `Class.method`, read when the receiver is a variable declared
 * with that class.
 */
const JDK_TYPED_RESULTS: Readonly<Record<string, string>> = {
  'AtomicInteger.get': 'int', 'AtomicInteger.intValue': 'int', 'AtomicInteger.incrementAndGet': 'int', 'AtomicInteger.getAndIncrement': 'int',
  'AtomicInteger.decrementAndGet': 'int', 'AtomicInteger.getAndDecrement': 'int', 'AtomicInteger.addAndGet': 'int', 'AtomicInteger.getAndAdd': 'int',
  'AtomicLong.get': 'long', 'AtomicLong.longValue': 'long', 'AtomicLong.incrementAndGet': 'long', 'AtomicLong.getAndIncrement': 'long',
  'AtomicLong.decrementAndGet': 'long', 'AtomicLong.getAndDecrement': 'long', 'AtomicLong.addAndGet': 'long', 'AtomicLong.getAndAdd': 'long',
  'AtomicBoolean.get': 'boolean', 'AtomicIntegerArray.get': 'int', 'AtomicLongArray.get': 'long',
  'BigDecimal.toPlainString': 'String', 'BigInteger.bitLength': 'int', 'Character.charValue': 'char',
  'StringBuilder.charAt': 'char', 'String.charAt': 'char', 'CharSequence.charAt': 'char', 'String.indexOf': 'int', 'String.lastIndexOf': 'int',
  'Optional.isPresent': 'boolean', 'Iterator.hasNext': 'boolean', 'Matcher.matches': 'boolean', 'Matcher.find': 'boolean', 'Matcher.group': 'String',
};

/**
 * Results of JDK static methods whose result type is the same for every overload (`System.lineSeparator()`,
 * `Long.parseLong(s)`), keyed `Class.method`, read when the class name is no workspace class.
 */
const JDK_STATIC_RESULTS: Readonly<Record<string, string>> = {
  'System.lineSeparator': 'String', 'System.getProperty': 'String', 'System.currentTimeMillis': 'long', 'System.nanoTime': 'long',
  'System.identityHashCode': 'int', 'Integer.parseInt': 'int', 'Long.parseLong': 'long', 'Short.parseShort': 'short',
  'Byte.parseByte': 'byte', 'Double.parseDouble': 'double', 'Float.parseFloat': 'float', 'Boolean.parseBoolean': 'boolean',
  'Integer.toString': 'String', 'Long.toString': 'String', 'Double.toString': 'String', 'Integer.toHexString': 'String',
  'Long.toHexString': 'String', 'Integer.toBinaryString': 'String', 'String.valueOf': 'String', 'String.format': 'String',
  'String.join': 'String', 'Character.isDigit': 'boolean', 'Character.isLetter': 'boolean', 'Character.isLetterOrDigit': 'boolean',
  'Character.isWhitespace': 'boolean', 'Character.isUpperCase': 'boolean', 'Character.isLowerCase': 'boolean',
  'Objects.equals': 'boolean', 'Objects.hash': 'int', 'Objects.hashCode': 'int', 'Objects.toString': 'String', 'Objects.isNull': 'boolean',
  'Objects.nonNull': 'boolean', 'Arrays.toString': 'String', 'Arrays.deepToString': 'String', 'Arrays.equals': 'boolean',
  'Arrays.hashCode': 'int', 'Math.sqrt': 'double', 'Math.pow': 'double', 'Math.floor': 'double', 'Math.ceil': 'double',
  'Math.random': 'double', 'Math.log': 'double', 'Math.exp': 'double', 'Thread.currentThread': 'Thread',
  // Common factories of collections, paths, streams and optionals.
  'Arrays.asList': 'List', 'List.of': 'List', 'List.copyOf': 'List', 'Set.of': 'Set', 'Set.copyOf': 'Set', 'Map.of': 'Map', 'Map.copyOf': 'Map',
  'Collections.emptyList': 'List', 'Collections.singletonList': 'List', 'Collections.unmodifiableList': 'List', 'Collections.emptySet': 'Set',
  'Collections.singleton': 'Set', 'Collections.unmodifiableSet': 'Set', 'Collections.emptyMap': 'Map', 'Collections.singletonMap': 'Map',
  'Collections.unmodifiableMap': 'Map', 'Paths.get': 'Path', 'Path.of': 'Path', 'Files.newInputStream': 'InputStream',
  'Files.newOutputStream': 'OutputStream', 'Files.newBufferedReader': 'BufferedReader', 'Files.newBufferedWriter': 'BufferedWriter',
  'Files.readAllBytes': 'byte[]', 'Files.readString': 'String', 'Stream.of': 'Stream', 'Optional.of': 'Optional', 'Optional.ofNullable': 'Optional',
  'Optional.empty': 'Optional', 'Charset.forName': 'Charset', 'Pattern.compile': 'Pattern',
};

/** The static type (as written) of argument `text` of a call at `caller`/`line`, or undefined. */
export function javaArgumentType(ctx: ReceiverContext, text: string, caller: string | null, line: number): string | undefined {
  const name = text.startsWith('this.') ? text.slice(5) : text;
  const declared = IDENT.test(name) ? findBinding(ctx, ctx.scope, name, caller, line)?.type : undefined;
  if (declared) return declared;
  // `values[i]` of an array declared `long[] values`: a `long`.
  const element = /^([\p{ID_Start}_$][\p{ID_Continue}$]*)\[[^[\]]*\]$/u.exec(name);
  const array = element ? findBinding(ctx, ctx.scope, element[1], caller, line)?.type?.trim() : undefined;
  if (array?.endsWith('[]')) return array.slice(0, -2).trim();
  const t = receiverType(ctx, text, caller, line);
  if (t && (t.kind === 'instance' || t.kind === 'class')) return ctx.tables.node(t.node).label;
  return fieldReadType(ctx, text, caller, line) ?? callResultType(ctx, text, caller, line);
}

/**
 * `recv.field` without a call, the receiver a workspace class or one of its instances: the field's
 * declared type, from the class or an ancestor (`Constants.COMMA` declared `String` in Constants).
 */
function fieldReadType(ctx: ReceiverContext, text: string, caller: string | null, line: number): string | undefined {
  const m = /^(.+)\.([\p{ID_Start}_$][\p{ID_Continue}$]*)$/u.exec(text);
  if (!m) return undefined;
  const recv = receiverType(ctx, m[1], caller, line);
  if (!recv || (recv.kind !== 'instance' && recv.kind !== 'class')) return undefined;
  const tables = ctx.tables;
  const seen = new Set<number>();
  const queue = [recv.node];
  while (queue.length > 0 && seen.size < 8) {
    const cls = queue.shift()!;
    if (seen.has(cls)) continue;
    seen.add(cls);
    ctx.deps.push(tables.node(cls).label);
    const field = tables.fieldOf(cls, m[2]);
    if (field) return field.type?.trim() || undefined;
    queue.push(...tables.parentsOf(cls));
  }
  return undefined;
}

/**
 * The static type (as written) of a Java call used as an argument, `recv.m(…)`: the declared result
 * of the workspace method it runs (`primitive.getAsNumber()` → `Number`), else that of a common JDK
 * method of that name (`value.toString()` → `String`); `Integer.valueOf(s)` is an `Integer`,
 * `Long.parseLong(s)` a `long`.
 */
function callResultType(ctx: ReceiverContext, text: string, caller: string | null, line: number): string | undefined {
  const m = /^(.*)\.([\p{ID_Start}_$][\p{ID_Continue}$]*)\([^()]*\)$/u.exec(text);
  if (!m) return undefined;
  if (m[2] === 'valueOf' && JAVA_LANG.has(m[1])) return m[1];
  const recv = receiverType(ctx, m[1], caller, line);
  if (recv && (recv.kind === 'instance' || recv.kind === 'class')) {
    const method = ctx.memberOf(recv.node, m[2]);
    const declared = method >= 0 ? ctx.tables.returnTypeOf(method) : undefined;
    if (declared) return declared;
    if (method >= 0) return undefined; // a workspace method with no declared result here: do not guess
  }
  if (recv?.kind !== 'instance' && recv?.kind !== 'class' && IDENT.test(m[1])) {
    // A JDK class's static method (`System.lineSeparator()`), the class name not a workspace class's.
    const statics = JDK_STATIC_RESULTS[`${m[1]}.${m[2]}`];
    if (statics) return statics;
    // A variable declared with a JDK class whose method's result depends on it (`AtomicInteger value; value.get()`).
    const declared = findBinding(ctx, ctx.scope, m[1], caller, line)?.type?.replace(/<.*$/s, '').replace(/^.*\./, '').trim();
    const typed = declared ? JDK_TYPED_RESULTS[`${declared}.${m[2]}`] : undefined;
    if (typed) return typed;
  }
  // Own keys only: `valueOf`, `constructor` and the like are members of every JS object.
  return Object.hasOwn(JDK_RESULTS, m[2]) ? JDK_RESULTS[m[2]] : undefined;
}
