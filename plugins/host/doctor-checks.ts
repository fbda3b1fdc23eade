/**
 * doctor's runtime and gate checks, each computed from the running host: the Node version against
 * package.json `engines.node`, and the gate taps the serving generation really has installed.
 */
import semver from 'semver';
import { BUILTIN_GATE_TAPS, GATE_STAGES, type CatalogView, type HostSettings } from '../../core/index.ts';

/** One doctor finding: a check, whether it passed, what was seen, and the fix when it did not. */
export interface Finding {
  check: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

/** Whether a Node version satisfies the package's engines range. */
export function nodeFinding(version: string, range: string): Finding {
  const ok = semver.satisfies(version, range);
  return { check: 'node', ok, detail: `Node ${version}; package.json engines.node "${range}"`, ...(ok ? {} : { fix: `use a Node version satisfying ${range}` }) };
}

/**
 * The gates: the built-in read-only, proof and validation taps are installed at their stages and
 * run before every plugin gate; with the proof gate on, a verb that proves targets exists for the
 * verbs it guards (otherwise those writes could never pass).
 */
export function gatesFinding(settings: Readonly<Pick<HostSettings, 'readOnly' | 'proofGate'>>, catalog: CatalogView): Finding {
  const taps = catalog.gateTaps();
  const problems: string[] = [];
  const builtin = [
    ['read-only', BUILTIN_GATE_TAPS.readOnly, GATE_STAGES.readOnly],
    ['proof', BUILTIN_GATE_TAPS.proof, GATE_STAGES.proof],
    ['validation', BUILTIN_GATE_TAPS.validation, GATE_STAGES.validation],
  ] as const;
  for (const [label, name, stage] of builtin) {
    const tap = taps.find((t) => t.name === name);
    if (!tap) problems.push(`the ${label} gate tap is not installed`);
    else if (tap.stage !== stage) problems.push(`the ${label} gate runs at stage ${tap.stage}, not ${stage}`);
  }
  const builtinNames = new Set<string>(builtin.map((b) => b[1]));
  const lastBuiltin = Math.max(...taps.map((t, i) => (builtinNames.has(t.name) ? i : -1)));
  const early = taps.filter((t, i) => !builtinNames.has(t.name) && i < lastBuiltin).map((t) => t.name);
  if (early.length) problems.push(`plugin gate(s) ${early.join(', ')} run before the built-in gates`);
  const records = catalog.records();
  const guarded = records.filter((r) => r.proof).map((r) => r.name);
  const provers = records.filter((r) => r.proves).map((r) => r.name);
  if (settings.proofGate && guarded.length && !provers.length) {
    problems.push(`the proof gate is on but no registered verb proves targets, so ${guarded.join(', ')} are always refused`);
  }
  const proof = settings.proofGate ? `on (guards ${guarded.length ? guarded.join(', ') : 'no registered verb'}${provers.length ? `; proven with ${provers.join(', ')}` : ''})` : 'off';
  const detail = `gate taps in order: ${taps.map((t) => `${t.name} (${t.stage})`).join(', ') || 'none'}; read-only ${settings.readOnly ? 'on' : 'off'}, proof gate ${proof}`;
  if (problems.length === 0) return { check: 'gates', ok: true, detail };
  return { check: 'gates', ok: false, detail: `${problems.join('; ')}. ${detail}`, fix: settings.proofGate && guarded.length && !provers.length ? 'load a plugin with a proving verb, or run without M1ND_PROOF_GATE' : 'a plugin or a host change displaced the built-in gates: check the gate taps' };
}
