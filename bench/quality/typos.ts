/**
 * Did-you-mean after a typo: an agent names a node with one slip of the keyboard, the verb answers
 * GRAPH_NODE_NOT_FOUND with suggestions, and the agent calls again with the first one. The ground
 * truth is mechanical: a seeded sample of the graph's own functions, methods and classes, each
 * name changed by one edit (a letter dropped, doubled into another, replaced, or two swapped; never
 * the first letter, never into another existing name), asked in three forms:
 * - `name`: the bare name of a function or class, `Class.name` for a method;
 * - `path#name`: the file and the qualified name, the slip in the last segment;
 * - `file`: the file's path, the slip in its base name;
 * - `seek`: the `name` form as a `seek` query (a search for the name as mistyped).
 * A suggestion is right when it is the sampled node or one of its overloads (ids ending `#2`, `#3`…:
 * a name cannot tell them apart); for `name`, any node of that exact qualified name (two files may
 * declare the same one).
 */
import type { CodeGraphEngine } from '../../plugins/graph/engine/engine.ts';
import type { GraphNode } from '../../plugins/graph/api.ts';
import { isTestPath } from './callers.ts';
import { seededRandom, seededSample } from './scoring.ts';
import type { CallVerb } from './callers.ts';

export type TypoForm = 'name' | 'path#name' | 'file' | 'seek';
export interface TypoScore {
  form: TypoForm;
  asked: number;
  hit1: number;
  hit3: number;
}

const KINDS = new Set(['function', 'method', 'class', 'interface']);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** `word` with one edit at a position ≥ 1 drawn by `rand`. */
export function typo(word: string, rand: () => number): string {
  const at = 1 + Math.floor(rand() * (word.length - 1));
  const letter = LETTERS[Math.floor(rand() * LETTERS.length)];
  switch (Math.floor(rand() * 4)) {
    case 0:
      return word.slice(0, at) + word.slice(at + 1); // dropped
    case 1:
      return word.slice(0, at) + letter + word.slice(at); // inserted
    case 2:
      return word.slice(0, at) + letter + word.slice(at + 1); // replaced
    default:
      return at + 1 < word.length ? word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2) : word.slice(0, at); // swapped
  }
}

/** An id without its overload suffix. */
const family = (id: string): string => id.replace(/#\d+$/, '');

function suggestionsOf(json: unknown): string[] | null {
  const list = (json as { error?: { detail?: { suggestions?: unknown } } })?.error?.detail?.suggestions;
  return Array.isArray(list) ? list.map(String) : null;
}

/** Asks `impact` with each typo'd argument and scores the suggestions (or the node it resolved to). */
export async function scoreTypos(call: CallVerb, engine: CodeGraphEngine, perForm: number, seed: number): Promise<{ scores: TypoScore[]; misses: unknown[] }> {
  const g = engine.graph;
  const symbols: GraphNode[] = [];
  const files: GraphNode[] = [];
  const names = new Set<string>();
  const qualified = new Map<string, Set<string>>();
  for (const [, n] of g.nodes()) {
    names.add(n.label.toLowerCase());
    if (n.qualifiedName) {
      names.add(n.qualifiedName.toLowerCase());
      const ids = qualified.get(n.qualifiedName) ?? new Set<string>();
      ids.add(n.id);
      qualified.set(n.qualifiedName, ids);
    }
    if (isTestPath(n.path)) continue;
    if (n.kind === 'file' && n.label.length >= 6) files.push(n);
    else if (KINDS.has(n.kind) && n.label.length >= 5 && n.qualifiedName && !n.label.startsWith('<')) symbols.push(n);
  }
  const rand = seededRandom(seed);
  const slip = (word: string): string | null => {
    for (let k = 0; k < 5; k++) {
      const t = typo(word, rand);
      if (t !== word && !names.has(t.toLowerCase())) return t;
    }
    return null;
  };
  const scores: TypoScore[] = [];
  const misses: unknown[] = [];
  const ask = async (form: TypoForm, text: string, right: (id: string) => boolean, want: string) => {
    let got: string[];
    if (form === 'seek') {
      const r = await call('seek', { query: text, top_k: 3 });
      got = r.isError ? [] : ((r.json as { results?: { id: string }[] }).results ?? []).map((x) => x.id);
    } else {
      const r = await call('impact', { node_id: text, direction: 'reverse', max_depth: 1 });
      if (r.isError) got = suggestionsOf(r.json) ?? [];
      else got = [String((r.json as { node?: { id?: string } })?.node?.id ?? '')]; // resolved without a suggestion (a name, not a typo, after all)
    }
    const score = scores.find((x) => x.form === form)!;
    score.asked++;
    const rank = got.findIndex(right);
    if (rank === 0) score.hit1++;
    if (rank >= 0 && rank < 3) score.hit3++;
    else misses.push({ form, text, want, got: got.slice(0, 3) });
  };
  for (const form of ['name', 'path#name', 'file', 'seek'] as const) scores.push({ form, asked: 0, hit1: 0, hit3: 0 });
  for (const n of seededSample(symbols, perForm, seed)) {
    const q = n.qualifiedName!;
    const dot = q.lastIndexOf('.');
    const last = slip(n.label);
    if (last === null) continue;
    const typoQ = dot >= 0 ? `${q.slice(0, dot + 1)}${last}` : last;
    const bare = n.kind === 'method' ? typoQ : last;
    await ask('name', bare, (id) => family(id) === family(n.id) || (qualified.get(q)?.has(id) ?? false), n.id);
    await ask('path#name', `${n.path}#${typoQ}`, (id) => family(id) === family(n.id), n.id);
    await ask('seek', bare, (id) => family(id) === family(n.id) || (qualified.get(q)?.has(id) ?? false), n.id);
  }
  for (const f of seededSample(files, perForm, seed + 1)) {
    const base = f.label.replace(/\.[^.]*$/, '');
    const t = slip(base);
    if (t === null) continue;
    const dir = f.path.slice(0, f.path.length - f.label.length);
    await ask('file', `${dir}${t}${f.label.slice(base.length)}`, (id) => id === f.id, f.id);
  }
  return { scores, misses };
}
