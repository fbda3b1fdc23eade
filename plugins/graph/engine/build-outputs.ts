/**
 * A workspace's build output read as the sources it is compiled from. Tests and examples often import
 * the package as built (`import { Kysely } from '../../../dist/index.js'`); in a checkout nobody has
 * built, that folder is missing, the import resolves nowhere, and every call through it is lost (on
 * kysely: 70 test files, whose `tests` edges went from 565 to 20 once the checker replaced the
 * name-resolved calls). A tsconfig's `outDir` and `rootDir` say where each output file comes from.
 */

/** An `outDir` and the `rootDir` compiled into it: workspace-relative POSIX paths, '' for the root. */
export interface OutputRoot {
  outDir: string;
  rootDir: string;
}

/**
 * The source path for a path inside an output folder (a declaration file read as the script it
 * declares: `dist/a.d.ts` → `src/a.js`, which script probing maps to `src/a.ts`), or null when the
 * path is in none. `outputs` longest `outDir` first (see `sortOutputs`).
 */
export function sourceOfOutput(path: string, outputs: readonly OutputRoot[]): string | null {
  for (const o of outputs) {
    if (path !== o.outDir && !path.startsWith(`${o.outDir}/`)) continue;
    const rest = path.slice(o.outDir.length + 1);
    const src = o.rootDir === '' ? rest : rest === '' ? o.rootDir : `${o.rootDir}/${rest}`;
    return src.replace(/\.d\.([cm]?)ts$/, '.$1js');
  }
  return null;
}

/** The usable pairs, longest `outDir` first: an output folder at the root or equal to its sources maps nothing. */
export function sortOutputs(outputs: readonly OutputRoot[]): OutputRoot[] {
  const seen = new Set<string>();
  return outputs
    .filter((o) => o.outDir !== '' && o.outDir !== o.rootDir && !seen.has(o.outDir) && seen.add(o.outDir))
    .sort((a, b) => b.outDir.length - a.outDir.length);
}
