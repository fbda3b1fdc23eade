import assert from 'node:assert/strict';
import type { ExtractedBinding, FileExtraction } from '../../../../../plugins/graph/engine/extraction.ts';
import { extractFile } from '../../../../../plugins/graph/engine/parsers/index.ts';

/** `scope name source type value` per binding, for compact comparisons. */
function rows(x: FileExtraction): string[] {
  return (x.bindings ?? []).map((b: ExtractedBinding) => [b.scope ?? '-', b.name, b.source, b.type ?? '-', b.value ?? '-', b.endLine ?? '-'].join(' '));
}

function returns(x: FileExtraction): Record<string, string | undefined> {
  return Object.fromEntries(x.symbols.map((s) => [s.qualifiedName, s.returnType]));
}

describe('Extraction of bindings and return types', function () {
  it('Python: assignments, annotations, parameters, self fields, loops, with-as and return annotations', async function () {
    const x = await extractFile('m.py', `class Car:
    wheels: Wheel

    def __init__(self, engine: Engine, spare=None):
        self.engine = engine
        self.pump = Pump(spare, "x")

    def drive(self, *args) -> "Car":
        for w in self.wheels:
            w.spin()
        with open(p) as fh:
            fh.read()
        route = self.engine.start().route()
        return self
`);
    assert.deepEqual(rows(x), [
      'Car wheels assign Wheel - -',
      'Car.__init__ engine param Engine - -',
      'Car.__init__ spare param - - -',
      'Car engine field Engine engine -',
      'Car pump field - Pump() -',
      'Car.drive args param - - -',
      'Car.drive w range - self.wheels -',
      'Car.drive fh with - open() -',
      'Car.drive route assign - self.engine.start().route() -',
      'Car.drive <return> assign - self -',
    ]);
    assert.equal(returns(x)['Car.drive'], '"Car"');
  });

  it('Go: short declarations, var, parameters and receivers, range values, struct fields, results; closure parameters are scoped', async function () {
    const x = await extractFile('m.go', `package m

type Router struct {
	routes []*Route
}

func (r *Router) Match(name string) (*Route, error) {
	x := NewRoute()
	var y Route
	for _, rt := range r.routes {
		rt.Match()
	}
	r.Handle(func(w Writer, r *Request) {
		r.Use()
	})
	return x, nil
}
`);
    assert.deepEqual(rows(x), [
      'Router routes field []*Route - -',
      'Router.Match r param *Router - -',
      'Router.Match name param string - -',
      'Router.Match x assign - NewRoute() -',
      'Router.Match y assign Route - -',
      'Router.Match rt range - r.routes -',
      'Router.Match w param Writer - 15',
      'Router.Match r param *Request - 15',
    ]);
    assert.equal(returns(x)['Router.Match'], '(*Route, error)');
  });

  it('Java, Rust and TypeScript: declared types, constructed values and fields', async function () {
    const java = await extractFile('A.java', `class A {
  private Engine engine = new Engine();
  List<Pump> pumps() { for (Pump p : list) { p.run(); } var e = new Engine<T>(1); return null; }
}
`);
    assert.deepEqual(rows(java), ['A engine field Engine - -', 'A.pumps p assign Pump - -', 'A.pumps e assign var new Engine<T>() -']);
    assert.equal(returns(java)['A.pumps'], 'List<Pump>');
    const rust = await extractFile('s.rs', `struct Store { items: Vec<Item> }
impl Store {
    fn new(cap: usize) -> Self { let mut s = Store::with(cap); s }
}
`);
    assert.deepEqual(rows(rust), ['Store items field Vec<Item> - -', 'Store.new cap param usize - -', 'Store.new s assign - Store::with() -']);
    assert.equal(returns(rust)['Store.new'], 'Self');
    const ts = await extractFile('a.ts', `export class App {
  private router: Router = new Router();
  handle(req: Request): Response {
    const auth = jwt();
    return auth(req);
  }
}
`);
    assert.deepEqual(rows(ts), ['App router field Router new Router() -', 'App.handle req param Request - -', 'App.handle auth assign - jwt() -']);
    assert.equal(returns(ts)['App.handle'], 'Response');
  });
});
