/**
 * Concurrent flows: each entry point can run concurrently (a request handler serves two requests
 * at once; two entries run side by side). From each entry, a walk along calls stops at functions
 * that take a lock (valves); a function it reaches that writes module-level state is a write with no
 * synchronisation on the way. State written from concurrent flows is turbulence.
 */
import type { CodeGraphEngine } from '../graph/api.ts';
import { callPath, walkCalls } from './call-walk.ts';
import type { Deadline } from './deadline.ts';
import { FunctionCode } from './function-code.ts';
import { calledIn, entryLabel, type TaintEntry } from './taint.ts';

const LOCKED = /\bwith\s+(?:self\.)?\w*(?:[lL]ock|[mM]utex|[sS]em|[cC]ond)\w*|\basync\s+with\s+(?:self\.)?\w*[lL]ock\w*|\.acquire\s*\(|\brunExclusive\s*\(|\bnavigator\.locks\b|\bsynchronized\b|\.lock\s*\(\s*\)/;
const JS_MODULE = /^(?:export\s+)?(let|var|const)\s+([A-Za-z_$][\w$]*)/;
const PY_MODULE = /^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]/;

export interface FlowFacts {
  /** Module-level names this function writes. */
  writes: string[];
  locked: boolean;
}

function escape(name: string): string {
  return name.replace(/\$/g, '\\$');
}

/** Module-level names a file declares: name → whether it is rebindable (let/var/Python) or only mutable (const container). */
function moduleNames(lines: readonly string[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const line of lines) {
    const js = JS_MODULE.exec(line);
    if (js) out.set(js[2], js[1] !== 'const');
    else {
      const py = PY_MODULE.exec(line);
      if (py && !/^(?:def|class|import|from|if|for|while|return|with|try|except|else|elif)$/.test(py[1])) out.set(py[1], true);
    }
  }
  return out;
}

const namesCache = new WeakMap<readonly string[], Map<string, boolean>>();

const JS_FILE = /\.(?:[cm]?[jt]sx?)$/;
const AWAIT = /\bawait\b/g;

/**
 * Whether code on one thread can lose an update of `name` here: a read of it before an `await` and a
 * write that completes after it (`const n = hits.get(k); await save(); hits.set(k, n + 1)`,
 * `total += await f()`, `if (!cache[k]) cache[k] = await load(k)`). Between awaits an event loop's
 * code runs to completion, so a write with no such await cannot interleave with another flow's.
 */
function interleaved(body: string, n: string, writes: readonly RegExp[]): boolean {
  const awaits = [...body.matchAll(AWAIT)].map((m) => m.index);
  if (awaits.length === 0) return false;
  // A read: any mention that is not the target of a plain assignment (`x = …`, `x[k] = …`).
  const reads = [...body.matchAll(new RegExp(`(?<![\\w.$])${n}(?![\\w$])(?!\\s*=(?!=)|\\[[^\\]\\n]+\\]\\s*=(?!=))`, 'g'))].map((m) => m.index);
  const writeEnds: number[] = [];
  for (const w of writes) {
    for (const m of body.matchAll(new RegExp(w.source, 'g'))) {
      const end = body.indexOf('\n', m.index);
      writeEnds.push(end < 0 ? body.length : end);
    }
  }
  return awaits.some((a) => reads.some((r) => r < a) && writeEnds.some((e) => e > a));
}

/**
 * State writes and locks in one function's code, given its file's lines and path. In JavaScript and
 * TypeScript, and in a Python `async def`, flows share one thread: a write counts only when an
 * `await` can split it from a read of the same state (`interleaved`); elsewhere (threads) every
 * write counts.
 */
export function flowFacts(code: string, fileLines: readonly string[], path: string, extraLocks: RegExp | null): FlowFacts {
  let names = namesCache.get(fileLines);
  if (!names) namesCache.set(fileLines, (names = moduleNames(fileLines)));
  // A Python definition's own line (after any decorators): `async def` runs on an event loop.
  const js = JS_FILE.test(path);
  const pyDef = js ? null : /^[ \t]*(async[ \t]+)?def\s/m.exec(code);
  const oneThread = js || (pyDef !== null && pyDef[1] !== undefined);
  const body = code.split('\n').slice(1).join('\n'); // the definition line declares, it does not write
  const writes: string[] = [];
  for (const [name, rebindable] of names) {
    if (!body.includes(name)) continue;
    const n = escape(name);
    const mutate = new RegExp(`(?<![\\w.$])${n}(?:\\.(?:set|push|pop|shift|unshift|splice|delete|clear|add|append|extend|update|remove|setdefault|insert)\\s*\\(|\\[[^\\]\\n]+\\]\\s*(?:[+\\-*/]?=)(?!=))|\\bdel\\s+${n}\\[`);
    const rebind = new RegExp(`(?<![\\w.$])${n}\\s*(?:[+\\-*/]?=(?!=)|\\+\\+|--)`);
    // Python rebinds a module name only under `global`; otherwise it is a local.
    const pyRebind = pyDef !== null ? new RegExp(`\\bglobal\\s+[\\w,\\s]*\\b${n}\\b`).test(body) && rebind.test(body) : rebindable && rebind.test(body);
    const localShadow = new RegExp(`\\b(?:let|const|var)\\s+${n}\\b`).test(body);
    if (localShadow || !(mutate.test(body) || pyRebind)) continue;
    if (oneThread && !interleaved(body, n, pyRebind ? [mutate, rebind] : [mutate])) continue;
    writes.push(name);
  }
  return { writes, locked: LOCKED.test(code) || (extraLocks?.test(code) ?? false) };
}

export interface Turbulence {
  state: string;
  writers: string[];
  entries: string[];
  paths: string[][];
  score: number;
}

export interface Valve {
  state: string;
  entry: string;
  lock_at: string;
}

/**
 * Turbulence points and valves from the entries' call walks. An entry is a function, or a file's
 * top-level statement (an inline handler): then its own writes and lock are the statement's, and its
 * first hops the calls the statement makes (a file's call edges are the whole file's).
 */
export async function simulateFlows(
  engine: CodeGraphEngine,
  entries: readonly TaintEntry[],
  options: { maxDepth: number; particles: number; threshold: number; maxSteps: number; extraLocks: RegExp | null; readOnly: RegExp | null; deadline: Deadline },
): Promise<{ turbulence: Turbulence[]; valves: Valve[]; steps: number; entriesDone: number }> {
  const g = engine.graph;
  const facts = new FunctionCode<FlowFacts>(engine, `flow ${options.extraLocks?.source ?? ''}`, (code, lines, path) => flowFacts(code, lines, path, options.extraLocks));
  const states = new Map<string, { writers: Set<string>; entries: Set<string>; paths: string[][] }>();
  const valves: Valve[] = [];
  let steps = 0;
  let entriesDone = 0;
  for (const entry of entries) {
    if (options.deadline.spent() || steps >= options.maxSteps) break;
    await options.deadline.pace();
    const e = g.indexOf(entry.node.id);
    if (e < 0) continue;
    const label = entryLabel(entry);
    // A statement's facts under this classifier: the file's segment that starts where the entry's does.
    const seg = entry.segment ? facts.segments(e).find((s) => s.startLine === entry.segment!.startLine) : undefined;
    if (entry.segment && !seg) continue;
    const factsOf = (v: number): FlowFacts | null => (v === e && seg ? seg.facts : facts.of(v));
    const nameOf = (v: number): string => (v === e ? label : g.node(v)!.id);
    const firstHop = seg ? (t: number) => calledIn(seg.code, g.node(t)!) : undefined;
    const reached = walkCalls(g, e, options.maxDepth, 0, (v) => factsOf(v)?.locked === true, firstHop);
    steps += reached.order.length;
    for (const v of reached.order) {
      const f = factsOf(v);
      if (!f || f.writes.length === 0) continue;
      const node = g.node(v)!;
      for (const name of f.writes) {
        if (options.readOnly?.test(name)) continue;
        const key = `${node.path}::${name}`;
        if (f.locked) {
          valves.push({ state: key, entry: label, lock_at: nameOf(v) });
          continue;
        }
        const s = states.get(key) ?? { writers: new Set(), entries: new Set(), paths: [] };
        s.writers.add(nameOf(v));
        if (!s.entries.has(label)) s.paths.push([label, ...callPath(g, reached, v).slice(1)]);
        s.entries.add(label);
        states.set(key, s);
      }
    }
    // A locked function stops the walk: what it writes, and what lies beyond it, is behind the valve.
    for (const v of reached.order) {
      const f = factsOf(v);
      if (f?.locked && f.writes.length === 0) valves.push({ state: '(calls beyond)', entry: label, lock_at: nameOf(v) });
    }
    entriesDone++;
  }
  const turbulence: Turbulence[] = [];
  for (const [state, s] of states) {
    const score = Math.min(1, 0.25 * s.entries.size * options.particles);
    if (score < options.threshold) continue;
    turbulence.push({ state, writers: [...s.writers].sort(), entries: [...s.entries].sort(), paths: s.paths, score: Math.round(score * 100) / 100 });
  }
  turbulence.sort((a, b) => b.score - a.score || b.entries.length - a.entries.length || a.state.localeCompare(b.state));
  return { turbulence, valves, steps, entriesDone };
}
