/** The TypeScript ground truth's dispatch callers: reachable through a supertype member, or a sibling's. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tsCallers } from '../../../bench/quality/tools/ts-callers.ts';
import type { TruthCaller } from '../../../bench/quality/truth-format.ts';

const SOURCE = `export interface Driver { init(): void }
export class Mssql implements Driver { init(): void {} }
export class Runtime implements Driver {
  constructor(private d: Driver) {}
  init(): void { this.d.init() }
  again(): void { this.init() }
  asValue(): unknown { return this.d.init.bind(this.d) }
}
export abstract class Base { abstract go(): void; run() { this.go() } }
export class Sub extends Base { go(): void {} }
export class Sub2 extends Sub { go(): void {} }
export function viaSub(s: Sub) { s.go() }
export function viaSub2(s: Sub2) { s.go() }
`;

describe('quality bench TypeScript truth', () => {
  let root: string;
  let byName: Map<string, TruthCaller[]>;
  before(function () {
    this.timeout(60_000);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-ts-truth-'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'esnext' }, include: ['src'] }));
    fs.writeFileSync(path.join(root, 'src', 'a.ts'), SOURCE);
    byName = new Map(tsCallers(root, '').map((d) => [d.name, d.callers]));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const caller = (decl: string, name: string): TruthCaller | undefined => byName.get(decl)?.find((c) => c.name === name);

  it('marks a call through the interface the class implements reachable, a call naming a sibling implementation not', () => {
    assert.deepEqual(caller('Mssql.init', 'init'), { path: 'src/a.ts', name: 'init', line: 5, dispatch: true, reachable: true });
    assert.deepEqual(caller('Mssql.init', 'again'), { path: 'src/a.ts', name: 'again', line: 6, dispatch: true, reachable: false });
    // `this.init()` names Runtime.init itself: direct, no dispatch marks.
    assert.deepEqual(caller('Runtime.init', 'again'), { path: 'src/a.ts', name: 'again', line: 6 });
  });

  it('does not count reading the method as a value as a reachable call', () => {
    // `this.d.init.bind(this.d)` resolves to Driver.init, which Mssql implements, but invokes nothing.
    assert.deepEqual(caller('Mssql.init', 'asValue'), { path: 'src/a.ts', name: 'asValue', line: 7, dispatch: true, reachable: false });
  });

  it('follows base classes transitively and refuses a call on a subclass that overrides the method', () => {
    assert.equal(caller('Sub2.go', 'run')?.reachable, true);
    assert.equal(caller('Sub.go', 'run')?.reachable, true);
    // `s.go()` on a Sub may run a Sub2 (Sub2 derives from Sub): reachable for Sub2.go, direct for Sub.go.
    assert.equal(caller('Sub2.go', 'viaSub')?.reachable, true);
    assert.deepEqual(caller('Sub.go', 'viaSub'), { path: 'src/a.ts', name: 'viaSub', line: 12 });
    // `s.go()` on a Sub2 resolves to the override Sub2.go: it cannot run Sub.go.
    assert.deepEqual(caller('Sub.go', 'viaSub2'), { path: 'src/a.ts', name: 'viaSub2', line: 13, dispatch: true, reachable: false });
  });
});
