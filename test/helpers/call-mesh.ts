/**
 * A TypeScript repository of many small modules calling one another, for tests that need a dense
 * graph of a known size: `src/m<m>.ts` exports `f<m>_<i>` for each of `functions` functions, each
 * calling the functions `calls(m, i)` names in other modules (imported by name).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface CallMesh {
  modules: number;
  functions: number;
  /** The [module, function] pairs function i of module m calls (pairs in module m itself are left out). */
  calls: (m: number, i: number) => readonly (readonly [number, number])[];
  /** Each function with a doc comment and a statement before its return. */
  documented?: boolean;
}

const name = (m: number, i: number) => `f${m}_${i}`;

/** Writes the mesh under `root` (in `src/`). */
export function writeCallMesh(root: string, mesh: CallMesh): void {
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  for (let m = 0; m < mesh.modules; m++) {
    const calls = (i: number) => mesh.calls(m, i).filter(([t]) => t !== m);
    const imports = new Map<number, Set<string>>();
    for (let i = 0; i < mesh.functions; i++) for (const [t, j] of calls(i)) imports.set(t, (imports.get(t) ?? new Set()).add(name(t, j)));
    const lines = [...imports].map(([t, names]) => `import { ${[...names].join(', ')} } from './m${t}.ts';`);
    for (let i = 0; i < mesh.functions; i++) {
      const sum = ['x', ...calls(i).map(([t, j]) => `${name(t, j)}(x)`)].join(' + ');
      if (mesh.documented) lines.push(`/** Step ${i} of module ${m}. */`);
      lines.push(`export function ${name(m, i)}(x: number): number {`);
      if (mesh.documented) lines.push(`  const y = x * ${i + 1};`, `  return ${sum.replace(/^x/, 'y')};`);
      else lines.push(`  return ${sum};`);
      lines.push('}', '');
    }
    fs.writeFileSync(path.join(root, 'src', `m${m}.ts`), lines.join('\n'));
  }
}
