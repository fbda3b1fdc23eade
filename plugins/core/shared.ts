/** Schema pieces and helpers the core family's verbs share (one concern: talking about the graph). */
import { Type, type CallContext } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { GraphNode } from '../graph/api.ts';
export { nodeRef } from '../graph/api.ts';

/** The graph service of the calling generation. */
export function graphOf(ctx: CallContext): GraphService {
  return ctx.service<GraphService>('graph');
}

/** The graph a read verb queries for the calling agent: the federated view after `federate` (while the agent keeps it on), else the workspace's. */
export function queryGraphOf(ctx: CallContext): GraphService {
  return graphOf(ctx).federation.serviceFor(ctx.agentId);
}

export const NODE_KINDS = ['file', 'module', 'class', 'interface', 'function', 'method', 'type', 'section'] as const;

/** `node_types` parameter: node kinds to keep (empty = all). */
export const NodeTypes = Type.Array(Type.Union(NODE_KINDS.map((k) => Type.Literal(k))), { default: [], description: 'Node kinds to keep; [] = all' });

/** `token_budget` parameter: cap on this result's BPE tokens (ranked prefix kept). */
export const TokenBudget = Type.Integer({ minimum: 1, description: 'Max BPE tokens for the results (ranked prefix kept)' });


/** Cuts text to a character budget at a line boundary, saying how much was cut. */
export function capChars(text: string, max: number | undefined): { text: string; truncated: boolean; chars_cut: number } {
  if (max === undefined || text.length <= max) return { text, truncated: false, chars_cut: 0 };
  const cut = text.lastIndexOf('\n', max);
  const end = cut > 0 ? cut : max;
  return { text: text.slice(0, end), truncated: true, chars_cut: text.length - end };
}

/** Characters of one line a file view shows: a data dump's or a bundle's megabyte line is cut, not sent (and tokenised) whole. */
export const MAX_LINE_CHARS = 2000;

/** Numbered lines (`  12│text`) for a window of a file's lines, each cut to `maxLineChars` with what was left out. */
export function numberLines(lines: string[], firstLine: number, maxLineChars = MAX_LINE_CHARS): string {
  const width = String(firstLine + lines.length - 1).length;
  return lines.map((l, i) => `${String(firstLine + i).padStart(width)}│${l.length > maxLineChars ? `${l.slice(0, maxLineChars)}… [line cut: ${l.length - maxLineChars} more characters]` : l}`).join('\n');
}

/** How many of `lines` are longer than numberLines shows. */
export function longLines(lines: readonly string[], maxLineChars = MAX_LINE_CHARS): number {
  let n = 0;
  for (const l of lines) if (l.length > maxLineChars) n++;
  return n;
}

/** Whether a file's text is binary (a NUL in its first 8,000 characters, as the ingest's check). */
export function looksBinary(text: string): boolean {
  return text.slice(0, 8000).includes('\0');
}
