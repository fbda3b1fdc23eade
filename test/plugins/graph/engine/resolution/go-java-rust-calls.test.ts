import { strict as assert } from 'node:assert';
import type { Harness } from '../../../../helpers/mcp.ts';
import { callersOf, ingestedRepo } from './callers.ts';

const GO: Record<string, string> = {
  'go.mod': 'module example.com/mux\n\ngo 1.21\n',
  'mux.go': `package mux

type Router struct {
	routes []*Route
	named  map[string]*Route
}

type Route struct {
	name string
}

type HandlerFunc func()

func NewRouter() *Router {
	return &Router{}
}

func (r *Router) NewRoute() *Route {
	route := &Route{}
	r.routes = append(r.routes, route)
	return route
}

func (r *Router) Methods(m ...string) *Route {
	return r.NewRoute().Methods(m...)
}

func (r *Route) Methods(m ...string) *Route {
	return r
}

func (r *Router) Match() bool {
	for _, route := range r.routes {
		if route.Match() {
			return true
		}
	}
	return false
}

func (r *Router) HandlerFunc(f func()) {}

func (r *Router) Get(name string) *Route {
	return r.named[name]
}
`,
  'route.go': `package mux

func (r *Route) Match() bool {
	return r.name != ""
}
`,
  'handler.go': `package mux

import "net/http"

func Wrap(f func(http.ResponseWriter, *http.Request)) http.Handler {
	return http.HandlerFunc(f)
}

func Convert(f func()) HandlerFunc {
	return HandlerFunc(f)
}

func Use() {
	router := NewRouter()
	router.Methods("GET")
	router.Get("x").Match()
	var rt Route
	rt.Methods()
	rts := []*Route{}
	for _, x := range rts {
		x.Match()
	}
}
`,
  // Calls on interface values: \`Kind\` has two implementations (one in this file), \`Only\` one.
  'value.go': `package mux

type Value interface {
	Kind() string
	Only() bool
}

type Flag struct {
	Value Value
}

type textValue struct{}

func (t textValue) Kind() string { return "text" }

func Describe(f *Flag) string {
	if o, ok := f.Value.(interface{ Only() bool }); ok && o.Only() {
		return ""
	}
	if v, ok := f.Value.(Value); ok {
		return v.Kind()
	}
	return f.Value.Kind()
}
`,
  'count.go': `package mux

type countValue int

func (c *countValue) Kind() string { return "count" }

func (c *countValue) Only() bool { return true }
`,
};

const JAVA: Record<string, string> = {
  'src/main/java/app/Engine.java': `package app;

public class Engine {
  public void start() {}
  public void stop() {}
}
`,
  'src/main/java/app/Pump.java': `package app;

public class Pump {
  public void start() {}
}
`,
  'src/main/java/app/Util.java': `package app;

final class Util {
  static void check(Object o) {}
}
`,
  // A field and a method share a name: `spare()` is the method (a Pump), never the field (an Engine).
  'src/main/java/app/Garage.java': `package app;

public class Garage {
  private Engine spare = null;
  private Pump pump;

  Pump spare() {
    if (pump == null) pump = new Pump();
    return pump;
  }

  void fill() {
    spare().start();
  }
}
`,
  // A parameter typed by its fully qualified name beside an imported class of the same simple name.
  'src/main/java/org/acme/model/Node.java': `package org.acme.model;

public class Node {
  public String name() {
    return "";
  }
}
`,
  'src/main/java/org/acme/model/Label.java': `package org.acme.model;

public class Label {
  public String name() {
    return "";
  }
}
`,
  'src/main/java/app/Exporter.java': `package app;

import org.w3c.dom.Node;

class Exporter {
  String export(org.acme.model.Node source, Node target) {
    target.getNodeName();
    return source.name();
  }
}
`,
  // try-with-resources binds its resource; Cursor.advance shares the name.
  'src/main/java/app/Reader.java': `package app;

class Reader implements AutoCloseable {
  void advance() {}
  public void close() {}
}
`,
  'src/main/java/app/Cursor.java': `package app;

class Cursor {
  void advance() {}
  void detach() {}
}
`,
  // Type parameters with bounds: a T holds a Part.
  'src/main/java/app/Part.java': `package app;

class Part {
  void detach() {}
}
`,
  'src/main/java/app/Parts.java': `package app;

import java.util.ArrayList;

class Parts<T extends Part> extends ArrayList<T> {
  void detachAll() {
    for (T p : this) {
      p.detach();
    }
  }

  <U extends Part> void one(U u) {
    u.detach();
  }
}
`,
  'src/main/java/app/Loader.java': `package app;

class Loader {
  void load() throws Exception {
    try (Reader reader = new Reader()) {
      reader.advance();
    }
  }

  void cast(Object value) {
    ((Reader) value).advance();
  }
}
`,
  'src/main/java/app/Wrapper.java': `package app;

final class Wrapper {}
`,
  'src/test/java/app/CarTest.java': `package app;

class CarTest {
  void wraps() {
    Wrapper w = new Wrapper();
  }
}
`,
  'src/main/java/app/Car.java': `package app;

import java.util.List;

import static app.Util.check;

public class Car {
  private Engine engine = new Engine();

  public Engine getEngine() {
    return engine;
  }

  List<Pump> pumps() {
    return null;
  }

  public void drive(Pump p) {
    check(p);
    engine.start();
    p.start();
    getEngine().stop();
  }

  public void prime() {
    for (Pump q : pumps()) {
      q.start();
    }
  }
}
`,
};

const RUST: Record<string, string> = {
  'Cargo.toml': '[package]\nname = "store"\nversion = "0.1.0"\n',
  'src/lib.rs': 'mod store;\nmod app;\n',
  'src/store.rs': `pub struct Item {}

pub struct Store {
    pub items: Vec<Item>,
}

impl Store {
    pub fn new() -> Self {
        Store { items: Vec::new() }
    }

    pub fn add(&mut self) {}
}

impl Item {
    pub fn add(&self) {}
}
`,
  'src/app.rs': `use crate::store::Store;

pub fn fill() {
    let mut s = Store::new();
    s.add();
}

pub fn touch_all(s: &Store) {
    for it in s.items.iter() {
        it.add();
    }
}
`,
};

describe('Go call resolution by receiver type', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await ingestedRepo(GO);
  });
  after(async () => {
    await h?.close();
  });

  it('tells Router.Methods from Route.Methods by the static type of the receiver (return types, var declarations)', async () => {
    assert.deepEqual(await callersOf(h, 'method:mux.go#Router.Methods'), ['function:handler.go#Use']);
    assert.deepEqual(await callersOf(h, 'method:mux.go#Route.Methods'), ['function:handler.go#Use', 'method:mux.go#Router.Methods']);
  });

  it('types range over a []*Route struct field and a []*Route literal, and methods declared in another file of the package', async () => {
    assert.deepEqual(await callersOf(h, 'method:route.go#Route.Match'), ['function:handler.go#Use', 'method:mux.go#Router.Match']);
    assert.deepEqual(await callersOf(h, 'method:mux.go#Router.Match'), []);
  });

  it('links a call on an interface value to the only method of that name, never to the same file\'s guess among several', async () => {
    assert.deepEqual(await callersOf(h, 'method:value.go#textValue.Kind'), []);
    assert.deepEqual(await callersOf(h, 'method:count.go#countValue.Kind'), []);
    assert.deepEqual(await callersOf(h, 'method:count.go#countValue.Only'), ['function:value.go#Describe']);
  });

  it('does not take a conversion (http.HandlerFunc(f), HandlerFunc(f)) for a call', async () => {
    assert.deepEqual(await callersOf(h, 'method:mux.go#Router.HandlerFunc'), []);
    assert.deepEqual(await callersOf(h, 'type:mux.go#HandlerFunc'), []);
  });
});

describe('Java call resolution by declared type', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await ingestedRepo(JAVA);
  });
  after(async () => {
    await h?.close();
  });

  it('resolves calls on fields, parameters, method results and enhanced-for variables to the declared class', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/main/java/app/Engine.java#Engine.start'), ['method:src/main/java/app/Car.java#Car.drive']);
    assert.deepEqual(await callersOf(h, 'method:src/main/java/app/Engine.java#Engine.stop'), ['method:src/main/java/app/Car.java#Car.drive']);
    assert.deepEqual(await callersOf(h, 'method:src/main/java/app/Pump.java#Pump.start'), [
      'method:src/main/java/app/Car.java#Car.drive',
      'method:src/main/java/app/Car.java#Car.prime',
      'method:src/main/java/app/Garage.java#Garage.fill',
    ]);
  });

  it('types a parameter written with its package (org.acme.model.Node) as the workspace class, though an import from org.w3c names another Node', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/main/java/org/acme/model/Node.java#Node.name'), ['method:src/main/java/app/Exporter.java#Exporter.export']);
    assert.deepEqual(await callersOf(h, 'method:src/main/java/org/acme/model/Label.java#Label.name'), []);
  });

  it('types a try-with-resources variable by its declared type, and a cast receiver by the cast', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/main/java/app/Reader.java#Reader.advance'), ['method:src/main/java/app/Loader.java#Loader.cast', 'method:src/main/java/app/Loader.java#Loader.load']);
    assert.deepEqual(await callersOf(h, 'method:src/main/java/app/Cursor.java#Cursor.advance'), []);
  });

  it('types a variable of a bounded type parameter (class <T extends Part>, method <U extends Part>) as the bound', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/main/java/app/Part.java#Part.detach'), ['method:src/main/java/app/Parts.java#Parts.detachAll', 'method:src/main/java/app/Parts.java#Parts.one']);
    assert.deepEqual(await callersOf(h, 'method:src/main/java/app/Cursor.java#Cursor.detach'), []);
  });

  it('takes a bare call name() for the method, not a field of the same name', async () => {
    assert.ok((await callersOf(h, 'method:src/main/java/app/Pump.java#Pump.start')).includes('method:src/main/java/app/Garage.java#Garage.fill'));
    assert.ok(!(await callersOf(h, 'method:src/main/java/app/Engine.java#Engine.start')).includes('method:src/main/java/app/Garage.java#Garage.fill'));
  });

  it('resolves a static import to the member of the imported class, and a package-private class from the same package in another source root', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/main/java/app/Util.java#Util.check'), ['method:src/main/java/app/Car.java#Car.drive']);
    assert.deepEqual(await callersOf(h, 'class:src/main/java/app/Wrapper.java#Wrapper'), ['method:src/test/java/app/CarTest.java#CarTest.wraps']);
  });
});

describe('Rust call resolution by receiver type', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await ingestedRepo(RUST);
  });
  after(async () => {
    await h?.close();
  });

  it('types `let s = Store::new()` from `-> Self` and a for over a Vec field', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/store.rs#Store.add'), ['function:src/app.rs#fill']);
    assert.deepEqual(await callersOf(h, 'method:src/store.rs#Item.add'), ['function:src/app.rs#touch_all']);
  });
});

describe('Java overloads typed by call results, and java.lang receivers', function () {
  this.timeout(60_000);
  let h: Harness;
  // `Writer.value` has four overloads of one parameter; each call below can run exactly one.
  const JAVA_ARGS: Record<string, string> = {
    'src/main/java/json/Writer.java': `package json;

public class Writer {
  public Writer value(String s) { return this; }
  public Writer value(boolean b) { return this; }
  public Writer value(long n) { return this; }
  public Writer value(Number n) { return this; }
}
`,
    'src/main/java/json/Primitive.java': `package json;

public class Primitive {
  public Number getAsNumber() { return 1; }
  public boolean getAsBoolean() { return true; }
}
`,
    'src/main/java/json/Names.java': `package json;

public class Names {
  static String getName(String s) { return s; }
  static int parseInt(String s, int from) { return 0; }

  public Adapter adapter(Class<?> type) { return null; }
  public Adapter adapter(Token type) { return null; }
}
`,
    'src/main/java/json/Token.java': `package json;

public class Token {}
`,
    'src/main/java/json/Adapter.java': `package json;

public class Adapter {}
`,
    'src/main/java/json/Write.java': `package json;

public class Write {
  void number(Writer out, Primitive p) { out.value(p.getAsNumber()); }
  void flag(Writer out, Primitive p) { out.value(p.getAsBoolean()); }
  void text(Writer out, Object o) { out.value(o == null ? null : o.toString()); }
  void count(Writer out, Integer n) { out.value(n.longValue()); }
  String kind(Class<?> type) { return type.getName(); }
  int number(String s) { return Integer.parseInt(s); }
  Adapter lookup(Names names) { return names.adapter(String.class); }
}
`,
  };

  before(async () => {
    h = await ingestedRepo(JAVA_ARGS);
  });
  after(async () => {
    await h?.close();
  });

  it('picks the overload by a workspace method\'s declared result, a JDK method\'s (toString, longValue), the non-null branch of a ternary and a class literal', async () => {
    const W = 'method:src/main/java/json/Writer.java#Writer';
    assert.deepEqual(await callersOf(h, `${W}.value`), ['method:src/main/java/json/Write.java#Write.text']);
    assert.deepEqual(await callersOf(h, `${W}.value#2`), ['method:src/main/java/json/Write.java#Write.flag']);
    assert.deepEqual(await callersOf(h, `${W}.value#3`), ['method:src/main/java/json/Write.java#Write.count']);
    assert.deepEqual(await callersOf(h, `${W}.value#4`), ['method:src/main/java/json/Write.java#Write.number']);
    assert.deepEqual(await callersOf(h, 'method:src/main/java/json/Names.java#Names.adapter'), ['method:src/main/java/json/Write.java#Write.lookup']);
    assert.deepEqual(await callersOf(h, 'method:src/main/java/json/Names.java#Names.adapter#2'), []);
  });

  it('takes Class<?> and Integer for java.lang\'s, never a same-named workspace method', async () => {
    assert.deepEqual(await callersOf(h, 'method:src/main/java/json/Names.java#Names.getName'), []);
    assert.deepEqual(await callersOf(h, 'method:src/main/java/json/Names.java#Names.parseInt'), []);
  });
});

describe('Go generics', function () {
  this.timeout(30_000);
  let h: Harness;
  const GENERIC: Record<string, string> = {
    'go.mod': 'module example.com/cache\n\ngo 1.19\n',
    'cache.go': `package cache

type Cache[K comparable, V any] struct{ items map[K]V }

func New[K comparable, V any](size int) (*Cache[K, V], error) { return &Cache[K, V]{}, nil }

func NewWith[K comparable, V any](size int, onEvict func(K, V), ttl int) *Cache[K, V] { return &Cache[K, V]{} }

func Ints(size int) (*Cache[int, int], error) { return nil, nil }

func (c *Cache[K, V]) Add(key K, value V) bool { return true }

type Other struct{}

func (o *Other) Add(key int, value int) bool { return false }
`,
    'cache_test.go': `package cache

func one() {
	l, _ := New[int, int](8)
	l.Add(1, 2)
}

func three() {
	l := NewWith[string, string](8, nil, 0)
	l.Add("a", "b")
}

func plain() {
	l, _ := Ints(8)
	l.Add(1, 2)
}
`,
  };
  before(async () => {
    h = await ingestedRepo(GENERIC);
  });
  after(async () => {
    await h?.close();
  });

  it('links an explicitly instantiated call (New[int, int](8), one argument or several) and types its result, a generic pointer in a result list included', async () => {
    assert.deepEqual(await callersOf(h, 'function:cache.go#New'), ['function:cache_test.go#one']);
    assert.deepEqual(await callersOf(h, 'function:cache.go#NewWith'), ['function:cache_test.go#three']);
    assert.deepEqual(await callersOf(h, 'method:cache.go#Cache.Add'), ['function:cache_test.go#one', 'function:cache_test.go#plain', 'function:cache_test.go#three']);
    assert.deepEqual(await callersOf(h, 'method:cache.go#Other.Add'), []);
  });
});
