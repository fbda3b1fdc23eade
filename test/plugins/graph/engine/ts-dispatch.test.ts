/**
 * Virtual dispatch in the TS checker pass, through the MCP client: a call through an interface,
 * abstract or overridable class member gets `dispatches` edges to exactly the implementations and
 * overrides a value of the receiver's type may run — an interface extending an interface, an
 * implementation inherited from a base class, an override two levels down, an arrow-function field,
 * an object type alias — and none to a sibling type, nor from `super.m()`; a member read as a value
 * references them.
 * (Apart from ts-precise.test.ts, whose fixture counts its files.)
 */
import assert from 'node:assert/strict';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler' }, include: ['src'] }),
  'src/shapes.ts': `export interface Named {
  name(): string;
}

export interface Greeter extends Named {
  greet(): string;
}

export class Base {
  name(): string {
    return 'base';
  }
}

export class Polite extends Base implements Greeter {
  greet(): string {
    return 'hello';
  }
}

export class Loud extends Polite {
  name(): string {
    return 'LOUD';
  }
}

export class Louder extends Loud {
  name(): string {
    return super.name() + '!';
  }
}

export class Sibling implements Named {
  name(): string {
    return 'sibling';
  }
}

export abstract class Shape {
  abstract area(): number;
  describe(): string {
    return String(this.area());
  }
}

abstract class Polygon extends Shape {}

export class Square extends Polygon {
  area(): number {
    return 4;
  }
}

export class Circle extends Shape {
  area = (): number => 3;
}

export type Clock = {
  now(): number;
};

export class SystemClock implements Clock {
  now(): number {
    return 1;
  }
}
`,
  'src/use.ts': `import type { Base, Clock, Greeter, Named, Polite, Shape } from './shapes';

export function viaNamed(n: Named): string {
  return n.name();
}

export function viaGreeter(g: Greeter): string {
  return g.name() + g.greet();
}

export function viaBase(b: Base): string {
  return b.name();
}

export function viaPolite(p: Polite): string {
  return p.name();
}

export function viaShape(s: Shape): number {
  return s.area();
}

export function viaClock(c: Clock): number {
  return c.now();
}

export function viaValue(g: Greeter): () => string {
  return g.name.bind(g);
}

export function viaRead(g: Greeter): () => string {
  const read = g.name;
  return read;
}
`,
};

/** Direct dependents of a node by relation: `{ calls: [...], dispatches: [...] }`. */
async function dependents(h: Harness, id: string): Promise<Record<string, string[]>> {
  const { json } = await h.call('impact', { agent_id: 'q', node_id: id, direction: 'reverse', max_depth: 1, detail: 'full' });
  assert.ok(Array.isArray(json.direct), JSON.stringify(json).slice(0, 300));
  const out: Record<string, string[]> = {};
  for (const e of json.direct as { id: string; relation: string }[]) for (const rel of e.relation.split('+')) (out[rel] ??= []).push(e.id);
  for (const list of Object.values(out)) list.sort();
  return out;
}

const use = (name: string): string => `function:src/use.ts#${name}`;

describe('TS checker pass: calls through interface, abstract and base members dispatch to implementations', function () {
  this.timeout(120000);
  let h: Harness;
  let ingested: Record<string, any>;
  before(async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-tsdispatch-'), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false } } } });
    ingested = (await h.call('ingest', { agent_id: 'setup', path: ws })).json;
    assert.deepEqual({ precise: ingested.type_checked.precise, failed: ingested.type_checked.failed }, { precise: 2, failed: 0 });
  });
  after(() => h?.close());

  // The counts were read before the wait for the checker: 0 dispatches beside `precise: 2`.
  it("ingest's node and edge counts are those of the graph the checker's pass left", () => {
    const byRelation = ingested.edgesByRelation as Record<string, number>;
    assert.ok(byRelation.dispatches > 0, JSON.stringify(byRelation));
    assert.equal(ingested.edges, Object.values(byRelation).reduce((a, b) => a + b, 0));
  });

  it('an implementation inherited from a base class implements the interface of a subclass', async () => {
    // Polite implements Greeter (and so Named) with Base.name; Base itself implements nothing.
    const d = await dependents(h, 'method:src/shapes.ts#Base.name');
    assert.deepEqual(d.calls, [use('viaBase'), use('viaPolite')]);
    assert.deepEqual(d.dispatches, [use('viaGreeter'), use('viaNamed'), use('viaValue')]);
  });

  it('a call through a concrete base method dispatches to its overrides, one and two levels down, but super.m() does not', async () => {
    const loud = await dependents(h, 'method:src/shapes.ts#Loud.name');
    assert.deepEqual(loud.dispatches, [use('viaBase'), use('viaGreeter'), use('viaNamed'), use('viaPolite'), use('viaValue')]);
    assert.deepEqual(loud.calls, ['method:src/shapes.ts#Louder.name']);
    const louder = await dependents(h, 'method:src/shapes.ts#Louder.name');
    assert.deepEqual(louder.dispatches, [use('viaBase'), use('viaGreeter'), use('viaNamed'), use('viaPolite'), use('viaValue')]);
    assert.equal(louder.calls, undefined);
  });

  it('a call through an interface extending an interface reaches only implementations of the extending one', async () => {
    assert.deepEqual((await dependents(h, 'method:src/shapes.ts#Sibling.name')).dispatches, [use('viaNamed')]);
    assert.deepEqual((await dependents(h, 'method:src/shapes.ts#Polite.greet')).dispatches, [use('viaGreeter')]);
  });

  it('an abstract method dispatches to an override two levels down and to an arrow-function field, from outside and from this.m()', async () => {
    const expected = [use('viaShape'), 'method:src/shapes.ts#Shape.describe'];
    assert.deepEqual((await dependents(h, 'method:src/shapes.ts#Square.area')).dispatches, expected);
    const circle = (await h.call('impact', { agent_id: 'q', node_id: 'src/shapes.ts:55', direction: 'reverse', max_depth: 1, detail: 'full' })).json;
    const byRel: Record<string, string[]> = {};
    for (const e of circle.direct as { id: string; relation: string }[]) (byRel[e.relation] ??= []).push(e.id);
    assert.deepEqual(byRel.dispatches?.sort(), expected, JSON.stringify(circle.node));
  });

  it('a member read as a value references the implementations it may stand for, not as a call; one bound with .bind dispatches as its call would', async () => {
    const loud = await dependents(h, 'method:src/shapes.ts#Loud.name');
    assert.deepEqual(loud.references, [use('viaRead')]);
    assert.ok(!loud.dispatches?.includes(use('viaRead')) && !loud.calls?.includes(use('viaRead')));
    assert.ok(loud.dispatches?.includes(use('viaValue')) && !loud.references?.includes(use('viaValue')));
    assert.deepEqual((await dependents(h, 'method:src/shapes.ts#Base.name')).references, [use('viaRead')]);
    assert.equal((await dependents(h, 'method:src/shapes.ts#Sibling.name')).references, undefined);
  });

  it('a member of an object type alias dispatches to the classes implementing the alias', async () => {
    assert.deepEqual((await dependents(h, 'method:src/shapes.ts#SystemClock.now')).dispatches, [use('viaClock')]);
  });
});
