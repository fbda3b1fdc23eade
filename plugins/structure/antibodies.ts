/**
 * Antibodies: stored bug patterns, kept in the workspace store (namespace `antibodies`, one row
 * each) so every agent and server process shares them. A pattern is either the normalised AST shape
 * of a known buggy function (taken from its node: where the same bug was copied, the shape recurs)
 * or a tree-sitter query. Each carries a specificity in 0..1 — how much a match says — and creation
 * refuses patterns too generic to mean anything and duplicates of stored ones.
 */
import { createHash } from 'node:crypto';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphService, Language } from '../graph/api.ts';
import { compileQuery } from './grammars.ts';
import { CODE_LANGUAGES } from './code-trees.ts';
import { Deadline } from './deadline.ts';
import { learnedShape } from './learn-capture.ts';
import { collectShapes, jaccard } from './shapes.ts';

const NAMESPACE = 'antibodies';
const MAX_ANTIBODIES = 500;
const MIN_SPECIFICITY = 0.15;
const DUPLICATE_JACCARD = 0.9;

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Antibody {
  id: string;
  name: string;
  description: string;
  severity: Severity;
  enabled: boolean;
  kind: 'shape' | 'query';
  /** shape: the node it was taken from, its sorted shingles and token count. */
  origin?: string;
  shingles?: number[];
  tokens?: number;
  /** query: the tree-sitter query and its language. */
  query?: string;
  language?: Language;
  min_similarity: number;
  specificity: number;
  /** Taken from a `learn` correction: which one, and whether the shape is the code as it was then. */
  learned_from?: { at: string; query: string; feedback: string; agent: string; shape_from: 'correction' | 'current_code' };
  created_by: string;
  created_at: string;
}

/** The pattern part of antibody_create. */
export interface PatternInput {
  from_node?: string;
  /** A `learn` correction: its query, or "latest". */
  from_learn?: string;
  query?: string;
  language?: Language;
  min_similarity?: number;
}

/** Every stored antibody, oldest first. */
export function listAntibodies(graph: GraphService): Antibody[] {
  if (!graph.engine.storeExists()) return [];
  return graph.engine.memory
    .list<Antibody>(NAMESPACE, '', MAX_ANTIBODIES)
    .map((e) => e.value)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** One antibody; STATE_NOT_FOUND naming antibody_list otherwise. */
export function getAntibody(graph: GraphService, id: string): Antibody {
  const hit = graph.engine.memory.get<Antibody>(NAMESPACE, id)?.value;
  if (!hit) throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no antibody ${id}`, { hint: 'call `antibody_list` (include_disabled: true) for the stored ids' });
  return hit;
}

/** Stores an antibody's new state. */
export function saveAntibody(graph: GraphService, antibody: Antibody): void {
  graph.engine.memory.set(NAMESPACE, antibody.id, antibody);
}

/** Removes one; false when it was not there. */
export function deleteAntibody(graph: GraphService, id: string): boolean {
  return graph.engine.memory.delete(NAMESPACE, id);
}

/** Specificity of a query: how many node tests and predicates constrain it. */
function querySpecificity(query: string): number {
  const nodes = (query.match(/\(\s*[a-z_]+/g) ?? []).length;
  const fields = (query.match(/\b[a-z_]+:/g) ?? []).length;
  const predicates = (query.match(/#(?:eq|match|not-eq|not-match|any-of)\?/g) ?? []).length;
  return Math.min(1, (nodes + fields + 2 * predicates) / 10);
}

/** Builds (without storing) an antibody from the pattern; refuses generic patterns and duplicates. */
export async function buildAntibody(graph: GraphService, input: { name: string; description: string; severity: Severity; pattern: PatternInput; agentId: string }): Promise<Antibody> {
  const { pattern } = input;
  const base = { name: input.name, description: input.description, severity: input.severity, enabled: true, created_by: input.agentId, created_at: new Date().toISOString() };
  let antibody: Antibody;
  if (pattern.from_learn) {
    const { shape, learned } = await learnedShape(graph, input.agentId, pattern.from_learn, pattern.from_node);
    antibody = { ...base, id: '', kind: 'shape', origin: shape.node, shingles: shape.shingles, tokens: shape.tokens, min_similarity: pattern.min_similarity ?? 0.75, specificity: round(Math.min(1, shape.tokens / 150)), learned_from: learned };
  } else if (pattern.from_node) {
    const node = graph.node(pattern.from_node);
    if (node.kind !== 'function' && node.kind !== 'method' && node.kind !== 'class') {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${node.id} is a ${node.kind}: an antibody takes the shape of a function, method or class`, { hint: 'pass the buggy function\'s id as pattern.from_node, or a tree-sitter pattern.query' });
    }
    const shape = (await collectShapes(graph, [node], new Deadline(30_000))).shapes.get(node.id);
    if (!shape) throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `could not read the code of ${node.id}`, { hint: 'ingest again (the file may have changed), then retry' });
    const specificity = Math.min(1, shape.tokens / 150);
    antibody = { ...base, id: '', kind: 'shape', origin: node.id, shingles: [...shape.shingles], tokens: shape.tokens, min_similarity: pattern.min_similarity ?? 0.75, specificity: round(specificity) };
  } else if (pattern.query) {
    const language = pattern.language ?? 'typescript';
    try {
      await compileQuery(language, pattern.query); // throws a coded error naming the problem
    } catch (error) {
      if (pattern.language || !(error instanceof M1ndError)) throw error;
      // No language given: say which languages the query is written for.
      const fits: Language[] = [];
      for (const other of CODE_LANGUAGES) {
        if (other === language) continue;
        if (await compileQuery(other, pattern.query).then(() => true, () => false)) fits.push(other);
      }
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${error.message} (pattern.language defaults to typescript)`, {
        hint: fits.length ? `it compiles for ${fits.join(', ')}: pass pattern.language, e.g. "${fits[0]}"` : 'pass pattern.language (the grammar the query is written for), and fix the S-expression (node names, balanced parentheses, @captures)',
      });
    }
    antibody = { ...base, id: '', kind: 'query', query: pattern.query, language, min_similarity: 1, specificity: round(querySpecificity(pattern.query)) };
  } else {
    throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'an antibody needs pattern.from_node (a buggy function), pattern.from_learn (a learn correction) or pattern.query (a tree-sitter query)', { hint: 'antibody_create({name, pattern: {from_node: "function:src/a.ts#f"}}) or {from_learn: "latest"}' });
  }
  if (antibody.specificity < MIN_SPECIFICITY) {
    throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `the pattern is too generic (specificity ${antibody.specificity} < ${MIN_SPECIFICITY}): it would match everywhere`, { hint: 'take a larger function, or add node types, fields and #eq?/#match? predicates to the query' });
  }
  const key = antibody.kind === 'shape' ? antibody.shingles!.join(',') : `${antibody.language}\n${antibody.query!.replace(/\s+/g, ' ').trim()}`;
  antibody.id = `ab_${createHash('sha1').update(key).digest('hex').slice(0, 10)}`;
  const stored = listAntibodies(graph);
  if (stored.length >= MAX_ANTIBODIES) throw new M1ndError(ErrorCodes.STATE_LIMIT, `${MAX_ANTIBODIES} antibodies are stored`, { hint: 'delete unused ones with antibody_create({action: "delete", antibody_id})' });
  const shingles = antibody.shingles ? Int32Array.from(antibody.shingles) : null;
  for (const other of stored) {
    const same = other.id === antibody.id || (shingles && other.shingles && jaccard(shingles, Int32Array.from(other.shingles)) >= DUPLICATE_JACCARD);
    if (same) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `duplicate of antibody ${other.id} ("${other.name}")`, { hint: `enable or edit ${other.id} instead: antibody_create({action: "enable", antibody_id: "${other.id}"})` });
  }
  return antibody;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** An antibody as listings show it (no shingle arrays). */
export function antibodyView(a: Antibody): Omit<Antibody, 'shingles'> {
  const { shingles: _omit, ...rest } = a;
  return rest;
}
