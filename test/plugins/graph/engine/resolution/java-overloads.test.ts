import { strict as assert } from 'node:assert';
import type { Harness } from '../../../../helpers/mcp.ts';
import { callersOf, callersOf as callersOfAll, ingestedRepo } from './callers.ts';

const DIR = 'src/main/java/com/ex';

const JAVA: Record<string, string> = {
  [`${DIR}/Loader.java`]: `package com.ex;

import java.io.File;

public class Loader {
    public Loader() { this("default"); }
    public Loader(String name) { this(name, 1); }
    public Loader(String name, int size) {}

    public static String load(String path) { return path; }
    public static String load(String path, String charset) { return load(path); }
    public static String load(File file, String charset, int limit) { return ""; }
    public static String load(int code) { return ""; }

    public static int count(String... parts) { return parts.length; }
    public static int count(String one) { return 1; }

    static void check(Loader loader) {}
    static void check(String name) {}
    void self() { check(this); }

    static String join(java.util.Collection<String> parts, String sep) { return ""; }
    static String join(java.util.Iterator<String> parts, String sep) { return ""; }
    static void emit(Base token) {}
    static void emit(char[] chars) {}
}
`,
  [`${DIR}/Opener.java`]: `package com.ex;

import java.io.File;
import java.net.URL;
import java.nio.file.Path;
import java.util.function.Supplier;

public class Opener {
    public static String open(File file, String charset) { return open(file.toPath(), charset); }
    public static String open(Path path, String charset) { return open(() -> path.toString(), charset); }
    public static String open(URL url, String charset) { return open(url::toString, charset); }
    public static String open(Settings settings, String charset) { return ""; }
    private static String open(Supplier<String> source, String charset) { return source.get(); }
    static String named(Class<?> type) { return type.getName(); }
    static String named(Settings settings) { return ""; }
}
`,
  [`${DIR}/Settings.java`]: `package com.ex;

public class Settings {}
`,
  [`${DIR}/Base.java`]: `package com.ex;

public class Base {
    public Base(int x) {}
    public void put(String key) {}
    protected Token.Tag tag;
    void clear() {}
    String label() { return ""; }
}
`,
  [`${DIR}/Child.java`]: `package com.ex;

public class Child extends Base {
    public Child() { super(3); }
    public void put(String key, String value) { put(key); }
    void reset() { clear(); }
    void useField() { tag.label(); }
    class Inner { void run() { clear(); } }
}
`,
  [`${DIR}/Token.java`]: `package com.ex;

abstract class Token {
    static class Tag extends Token {
        String label() { return ""; }
    }
    static final class StartTag extends Tag {}
}
`,
  [`${DIR}/State.java`]: `package com.ex;

enum State {
    A {
        void run() { step(); }
        void step() {}
    },
    B {
        void run() { step(); }
        void step() {}
    };

    abstract void run();
}
`,
  [`${DIR}/Writer.java`]: `package com.ex;

public class Writer {
    public Writer value(String value) { return this; }
    public Writer value(boolean value) { return this; }
    public Writer value(Boolean value) { return this; }
    public Writer value(float value) { return this; }
    public Writer value(double value) { return this; }
    public Writer value(long value) { return this; }
    public Writer value(Number value) { return this; }

    void ints(Number n) { value(n.intValue()); value(7); value('c'); }
    void bytes(Number n) { value(n.byteValue()); }
    void floats() { value(1.5f); }
    void doubles(Number n) { value(2.5); value(n.doubleValue()); }
    void flags(Boolean flag) { value(true); value(flag); }
    void wrappers(String s) { value(Integer.valueOf(s)); }
    void text(Object o) { value(o.toString()); }
    void kind(Class<?> c) {}
    void kind(Named n) {}
    void classes(Object o) { kind(o.getClass()); }
    void elements(long[] values, int i) { value(values[i]); }
    void atomics(java.util.concurrent.atomic.AtomicInteger count, java.util.concurrent.atomic.AtomicBoolean done) { value(count.get()); value(done.get()); }
    void constants(Consts c) { value(Consts.NAME); value(Consts.FLAG); value(c.rate); value(Consts.INHERITED); }
    void jdkStatics() { value(System.lineSeparator()); value(Long.parseLong("1")); }
    void emit(Named block, boolean flag) {}
    void emit(String format, Object... args) {}
    void emits(String name) { emit("$L", name); }
    void addAll(Named... items) {}
    void addAll(Iterable<Named> items) {}
    void spreadAll(Named... xs) { addAll(xs); for (Named n : xs) { n.getName(); } }
}
`,
  [`${DIR}/Consts.java`]: `package com.ex;

public class Consts extends BaseConsts {
    static final String NAME = "n";
    static final Boolean FLAG = Boolean.TRUE;
    final double rate = 0.5;
}
`,
  [`${DIR}/BaseConsts.java`]: `package com.ex;

public class BaseConsts {
    static final float INHERITED = 1f;
}
`,
  [`${DIR}/Named.java`]: `package com.ex;

public class Named {
    public String getName() { return ""; }
}
`,
  [`${DIR}/Tree.java`]: `package com.ex;

public class Tree {
    void clear() {}
    Object top() { return null; }
    class Keys { void clear() { Tree.this.clear(); } }
    <K> String describe(K key) { return key.getClass().getName() + getClass().getName(); }
    void peek() { ((Tree) top()).clear(); }
    Object copy(int[] a) { return a.clone(); }
    Object clone() { return this; }
    Iter<String> iterator() { return new Iter<String>() { String next() { return nextNode(); } }; }
    Iter<String> own() { return new Iter<String>() { String next() { return nextNode(); } String nextNode() { return ""; } }; }
}
`,
  [`${DIR}/LineReader.java`]: `package com.ex;

import org.lib.io.BufferedSource;

public class LineReader extends BufferedSource {
    int peek(char[] buf) { return 0; }
    int readLine() { return peek(); }
    int both() { return peek(new char[1]); }
}
`,
  [`${DIR}/Stack.java`]: `package com.ex;

public class Stack {
    private void push(int top) {}
    void grow() { push(1); }
}
`,
  [`${DIR}/TreeStack.java`]: `package com.ex;

public class TreeStack extends Stack {
    private void push(Object top) {}
    void add(Object unknown) { push(unknown.hashCode() > 0 ? unknown : null); push(compute()); }
    Object compute() { return null; }
}
`,
  [`${DIR}/Iter.java`]: `package com.ex;

public abstract class Iter<T> {
    T nextNode() { return null; }
    abstract T next();
}
`,
  [`${DIR}/App.java`]: `package com.ex;

import java.io.File;
import java.util.Arrays;

public class App {
    private String label;
    private Loader loader;
    Object unknown() { return null; }
    Loader build(int n) { return null; }
    void fields() { Loader.load(this.label); Loader.check(loader); }
    void result() { Loader.check(build(1)); }
    void nested(Token.StartTag tag) { tag.label(); }
    void subtypes(java.util.Set<String> names, Child child) { Loader.join(names, ","); Loader.emit(child); }
    void factory() { Loader.join(Arrays.asList("a", "b"), ","); }
    void declaring(Thread.State state) { Opener.named(state.getDeclaringClass()); }
    void one() { Loader.load("a"); }
    void two() { Loader.load("a", "utf8"); }
    void three(File f) { Loader.load(f, "x", 3); }
    void number() { Loader.load(42); }
    void typedLocal() { String p = "x"; Loader.load(p); }
    void typedParam(int code) { Loader.load(code); }
    void ambiguous() { Loader.load(unknown()); }
    void spread() { Loader.count("a", "b"); Loader.count(); }
    void fixed() { Loader.count("a"); }
    void make() { new Loader(); }
    void makeTwo() { new Loader("n", 2); }
    void child() { new Child().put("k", "v"); }
}
`,
};

const M = (file: string, q: string): string => `method:${DIR}/${file}.java#${q}`;

describe('Java overloads: calls linked by arity and argument types', function () {
  this.timeout(30_000);
  let h: Harness;
  before(async () => {
    h = await ingestedRepo(JAVA);
  });
  after(async () => {
    await h.close();
  });

  it('links each static call to the overload its argument count and literal or declared types fit', async () => {
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.load')), [M('App', 'App.ambiguous'), M('App', 'App.fields'), M('App', 'App.one'), M('App', 'App.typedLocal'), M('Loader', 'Loader.load#2')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.load#2')), [M('App', 'App.two')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.load#3')), [M('App', 'App.three')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.load#4')), [M('App', 'App.ambiguous'), M('App', 'App.number'), M('App', 'App.typedParam')]);
  });

  it('passes a lambda or a method reference only to an overload whose parameter may be a functional interface (no JDK class, no class of ours)', async () => {
    // Five overloads of one arity: `file.toPath()` is a Path; the lambda and `url::toString` can only be the Supplier.
    assert.deepEqual(await callersOf(h, M('Opener', 'Opener.open#5')), [M('Opener', 'Opener.open#2'), M('Opener', 'Opener.open#3')]);
    assert.deepEqual(await callersOf(h, M('Opener', 'Opener.open#2')), [M('Opener', 'Opener.open')]);
    for (const other of ['Opener.open', 'Opener.open#3', 'Opener.open#4']) assert.deepEqual(await callersOf(h, M('Opener', other)), [], other);
    // `getDeclaringClass()` is a `Class` whatever its receiver (an enum constant, a member).
    assert.deepEqual(await callersOf(h, M('Opener', 'Opener.named')), [M('App', 'App.declaring')]);
    assert.deepEqual(await callersOf(h, M('Opener', 'Opener.named#2')), []);
  });

  it('types this, fields and method results passed as arguments', async () => {
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.check')), [M('App', 'App.fields'), M('App', 'App.result'), M('Loader', 'Loader.self')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.check#2')), []);
  });

  it('prefers the overload whose parameter is a supertype of the argument (JDK collections, a JDK factory\'s result, workspace classes)', async () => {
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.join')), [M('App', 'App.factory'), M('App', 'App.subtypes')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.join#2')), []);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.emit')), [M('App', 'App.subtypes')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.emit#2')), []);
  });

  it('types a receiver declared with a nested, package-private class (Outer.Inner), or an inherited field, and finds its inherited method', async () => {
    assert.deepEqual(await callersOf(h, M('Token', 'Token.Tag.label')), [M('App', 'App.nested'), M('Child', 'Child.useField')]);
    assert.deepEqual(await callersOf(h, M('Base', 'Base.label')), []);
  });

  it('links a helper of an enum constant body from that body, not from its twin in another constant', async () => {
    assert.deepEqual(await callersOf(h, M('State', 'State.step')), [M('State', 'State.run')]);
    assert.deepEqual(await callersOf(h, M('State', 'State.step#2')), [M('State', 'State.run#2')]);
  });

  it('passes a primitive (a literal, a JDK result — atomicInteger.get() too —, an array element) to the nearest widening before any boxing, and a wrapper to its supertype before unboxing (JLS 15.12.2)', async () => {
    const W = (q: string): string => M('Writer', q);
    // The next test's callers (field reads, JDK statics) left out here.
    const callersOf = async (h: Harness, id: string) => (await callersOfAll(h, id)).filter((c) => c !== W('Writer.constants') && c !== W('Writer.jdkStatics'));
    assert.deepEqual(await callersOf(h, W('Writer.value')), [W('Writer.text')]);
    assert.deepEqual(await callersOf(h, W('Writer.value#2')), [W('Writer.atomics'), W('Writer.flags')]);
    assert.deepEqual(await callersOf(h, W('Writer.value#3')), [W('Writer.flags')]);
    assert.deepEqual(await callersOf(h, W('Writer.value#4')), [W('Writer.floats')]);
    assert.deepEqual(await callersOf(h, W('Writer.value#5')), [W('Writer.doubles')]);
    assert.deepEqual(await callersOf(h, W('Writer.value#6')), [W('Writer.atomics'), W('Writer.bytes'), W('Writer.elements'), W('Writer.ints')]);
    // A JDK method whose result depends on its class: AtomicInteger.get() an int, AtomicBoolean.get() a boolean.
    for (const other of ['Writer.value', 'Writer.value#3', 'Writer.value#4', 'Writer.value#5', 'Writer.value#7']) assert.ok(!(await callersOf(h, W(other))).includes(W('Writer.atomics')), other);
    assert.deepEqual(await callersOf(h, W('Writer.value#7')), [W('Writer.wrappers')]);
  });

  it('types a field read of another class (a static constant, an instance field, an inherited one) and a common JDK static call by their declared types', async () => {
    const W = (q: string): string => M('Writer', q);
    const callers = async (q: string) => (await callersOf(h, W(q))).filter((c) => c === W('Writer.constants') || c === W('Writer.jdkStatics'));
    assert.deepEqual(await callers('Writer.value'), [W('Writer.constants'), W('Writer.jdkStatics')]); // String: Consts.NAME, System.lineSeparator()
    assert.deepEqual(await callers('Writer.value#2'), []);
    assert.deepEqual(await callers('Writer.value#3'), [W('Writer.constants')]); // Boolean
    assert.deepEqual(await callers('Writer.value#4'), [W('Writer.constants')]); // float, inherited
    assert.deepEqual(await callers('Writer.value#5'), [W('Writer.constants')]); // double, instance field
    assert.deepEqual(await callers('Writer.value#6'), [W('Writer.jdkStatics')]); // Long.parseLong(s)
    assert.deepEqual(await callers('Writer.value#7'), []);
  });

  it('types a qualified this (Outer.this) and a cast of a call, and knows getClass() and clone() belong to the JDK', async () => {
    assert.deepEqual(await callersOf(h, M('Tree', 'Tree.clear')), [M('Tree', 'Tree.Keys.clear'), M('Tree', 'Tree.peek')]);
    assert.deepEqual(await callersOf(h, M('Named', 'Named.getName')), [M('Writer', 'Writer.spreadAll')]); // only the varargs loop's
    assert.deepEqual(await callersOf(h, M('Tree', 'Tree.clone')), []);
    assert.deepEqual(await callersOf(h, M('Writer', 'Writer.kind')), [M('Writer', 'Writer.classes')]);
    assert.deepEqual(await callersOf(h, M('Writer', 'Writer.kind#2')), []);
  });

  it('takes a varargs overload when no fixed-arity one can take the arguments (a String is never a class of ours)', async () => {
    assert.deepEqual(await callersOf(h, M('Writer', 'Writer.emit')), []);
    assert.deepEqual(await callersOf(h, M('Writer', 'Writer.emit#2')), [M('Writer', 'Writer.emits')]);
  });

  it('links a bare call in an anonymous class body to the method of the type it extends, unless the body defines it', async () => {
    assert.deepEqual(await callersOf(h, M('Iter', 'Iter.nextNode')), [`function:${DIR}/Tree.java#Tree.iterator.next`]);
    assert.deepEqual(await callersOf(h, `function:${DIR}/Tree.java#Tree.own.nextNode`), [`function:${DIR}/Tree.java#Tree.own.next`]);
  });

  it('types a varargs parameter as an array: passed on to the varargs overload (an array is no Iterable), its loop variable an element', async () => {
    assert.deepEqual(await callersOf(h, M('Writer', 'Writer.addAll')), [M('Writer', 'Writer.spreadAll')]);
    assert.deepEqual(await callersOf(h, M('Writer', 'Writer.addAll#2')), []);
  });

  it('takes a call no overload fits, in a class extending an outside one, for the outside base\'s method', async () => {
    assert.deepEqual(await callersOf(h, M('LineReader', 'LineReader.peek')), [M('LineReader', 'LineReader.both')]);
  });

  it('never offers a superclass\'s private method as an overload of a subclass\'s call', async () => {
    assert.deepEqual(await callersOf(h, M('Stack', 'Stack.push')), [M('Stack', 'Stack.grow')]);
    assert.deepEqual(await callersOf(h, M('TreeStack', 'TreeStack.push')), [M('TreeStack', 'TreeStack.add')]);
  });

  it('prefers a fixed-arity overload to a varargs one, which takes any other count', async () => {
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.count')), [M('App', 'App.spread')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.count#2')), [M('App', 'App.fixed')]);
  });

  it('links new, this(...) and super(...) to the constructor whose parameters fit', async () => {
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.Loader')), [M('App', 'App.make')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.Loader#2')), [M('Loader', 'Loader.Loader')]);
    assert.deepEqual(await callersOf(h, M('Loader', 'Loader.Loader#3')), [M('App', 'App.makeTwo'), M('Loader', 'Loader.Loader#2')]);
    assert.deepEqual(await callersOf(h, M('Base', 'Base.Base')), [M('Child', 'Child.Child')]);
  });

  it('links a bare call to a method the enclosing class (or an outer one) inherits', async () => {
    assert.deepEqual(await callersOf(h, M('Base', 'Base.clear')), [M('Child', 'Child.Inner.run'), M('Child', 'Child.reset')]);
  });

  it('finds an overload declared in a superclass when the own class has none that fits', async () => {
    assert.deepEqual(await callersOf(h, M('Base', 'Base.put')), [M('Child', 'Child.put')]);
    assert.deepEqual(await callersOf(h, M('Child', 'Child.put')), [M('App', 'App.child')]);
  });
});

describe('Java overloads: an argument named like an Object.prototype member', function () {
  this.timeout(30_000);
  it('ingests a call whose argument is `Kind.valueOf(s)` (a method name no JDK table lists) and keeps both overloads', async () => {
    // `valueOf`, `constructor`, `hasOwnProperty` are keys of every JS object: the tables must not answer them.
    const h = await ingestedRepo({
      [`${DIR}/Pick.java`]: `package com.ex;

public class Pick {
    enum Kind { A, B }
    static void take(Kind kind) {}
    static void take(String name) {}
    void run(String s) { take(Kind.valueOf(s)); take(Other.valueOf(s)); take(Other.hasOwnProperty(s)); }
}
`,
    });
    try {
      assert.deepEqual(await callersOf(h, M('Pick', 'Pick.take')), [M('Pick', 'Pick.run')]);
    } finally {
      await h.close();
    }
  });
});
