/**
 * Members before their types: a class, interface or type never outranks its own method among ranked
 * hits unless the query names it, nor a constructor another method of its class unless the query
 * asks how objects are made (seek's pass in seek-scoring.ts; `activate` applies it to its ranking).
 */
import type { CodeGraph, GraphNode } from './graph.ts';
import { STOP_WORDS, tokenize, wholeTerm } from './lexical-words.ts';

/** Kinds of a type: what members step before. */
export const TYPE_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'type']);

/** Members that build the type rather than do its work (a Java constructor is named as its class). */
export const CONSTRUCTORS: ReadonlySet<string> = new Set(['constructor', '__init__', '__new__', 'new']);

/** Query words that ask how an object is made: a constructor may then outrank the methods of its class. */
export const CONSTRUCTION: ReadonlySet<string> = new Set(['init', 'initialize', 'initialise', 'initialization', 'initialisation', 'initializer', 'construct', 'constructs', 'constructed', 'constructor', 'constructors', 'instantiate', 'instantiated', 'instantiation', 'create', 'creates', 'created', 'creating', 'new']);

/**
 * Whether a query names a node the way `membersBeforeTheirTypes` asks: a type as a whole (1–3
 * content words spelling it: `basic auth` names `BasicAuth`, as seek's whole-identifier term does), a
 * constructor by asking how an object is made (`init`, `create`, `constructor`, `new`, …). The query
 * is read once; the predicate answers per node.
 */
export function queryNames(query: string): (node: Pick<GraphNode, 'kind' | 'label'>) => boolean {
  const words = tokenize(query).filter((w) => !STOP_WORDS.has(w));
  const whole = words.length >= 1 && words.length <= 3 ? wholeTerm(words.join('')) : '';
  const construction = words.some((w) => CONSTRUCTION.has(w));
  return (node) => (TYPE_KINDS.has(node.kind) ? whole !== '' && wholeTerm(node.label) === whole : construction);
}

/**
 * A type never outranks its own method among ranked hits unless the query names the type, nor a
 * constructor another method of its class unless the query asks how objects are made: a class
 * matches by its name and doc (or, spreading along edges, by the members that reach it), a
 * constructor by the settings it stores, and the method by the code doing the work
 * (`FileMigrationProvider` vs `FileMigrationProvider.getMigrations` for "where are migration files
 * read"; `CORSMiddleware.__init__` vs `is_allowed_origin`). So the best-ranked such method takes the
 * type's (constructor's) place and score — its match is evidence for the class — and the type follows
 * it, scored a thousandth below (listings round to 3 places). `ranked` is best first and is reordered
 * in place; `named` says the query names the type or asks about construction; `withScore` gives an
 * entry with another score.
 */
export function membersBeforeTheirTypes<T>(
  graph: CodeGraph,
  ranked: T[],
  nodeOf: (r: T) => number,
  named: (r: T, node: GraphNode) => boolean,
  scoreOf: (r: T) => number,
  withScore: (r: T, score: number) => T,
): void {
  const moved = new Set<number>();
  for (let i = 0; i < ranked.length; i++) {
    const t = graph.node(nodeOf(ranked[i]));
    if (!t || moved.has(nodeOf(ranked[i]))) continue;
    const q = t.qualifiedName ?? t.label;
    // The class whose methods may go first: the type itself, or a constructor's class.
    const owner = TYPE_KINDS.has(t.kind) ? q : isConstructor(t) ? q.slice(0, q.lastIndexOf('.')) : '';
    if (owner === '' || named(ranked[i], t)) continue;
    const prefix = `${owner}.`;
    let member = -1;
    for (let j = i + 1; j < ranked.length && member < 0; j++) {
      const m = graph.node(nodeOf(ranked[j]));
      if (m && m.path === t.path && (m.kind === 'method' || m.kind === 'function') && (m.qualifiedName ?? '').startsWith(prefix) && !(m.qualifiedName ?? '').slice(prefix.length).includes('.') && !isConstructor(m)) member = j;
    }
    if (member < 0) continue;
    const type = ranked[i];
    moved.add(nodeOf(type));
    const score = scoreOf(type);
    const [m] = ranked.splice(member, 1);
    ranked.splice(i, 1, withScore(m, score), withScore(type, Math.max(0, score - 1e-3)));
    i--; // the hit now at i (the member) is looked at again: it may itself be a type with members
  }
}

/** A constructor: `constructor`, `__init__`, `__new__`, `new`, or a Java one (named as its class, `Foo.Foo`). */
function isConstructor(n: GraphNode): boolean {
  if (n.kind !== 'method') return false;
  if (CONSTRUCTORS.has(n.label)) return true;
  const q = (n.qualifiedName ?? '').replace(/#\d+$/, '').split('.');
  return q.length >= 2 && q[q.length - 1] === q[q.length - 2];
}
