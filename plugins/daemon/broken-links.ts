/**
 * Document links a deletion or move broke, checked again: a link by name the relink re-bound to the
 * moved symbol holds (no alert), and a `binding_broken` alert resolves once its document, edited, no
 * longer names what it linked to (or links to where it moved).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { converterFor } from '../documents/api.ts';
import type { GraphService } from '../graph/api.ts';
import type { AlertOutbox } from './alert-outbox.ts';

/** Formats whose file text holds the names its links were made from. */
const TEXT_FORMATS = new Set(['markdown', 'restructuredtext', 'text', 'html']);

/** A document section's link to a node of another file. */
export interface LinkRef {
  node: string;
  target: string;
}

/**
 * Whether a document still links to what `link` named after its file moved from `from` to `to`: a
 * link by name, which the relink re-bound to the same node id under the new path (a link by path
 * still names the old file, and is broken).
 */
export function linkFollowedMove(graph: GraphService, link: LinkRef, from: string, to: string): boolean {
  const colon = link.target.indexOf(':');
  const rest = link.target.slice(colon + 1);
  const after = rest.slice(from.length);
  if (!rest.startsWith(from) || (after !== '' && !after.startsWith('#'))) return false;
  const moved = `${link.target.slice(0, colon + 1)}${to}${after}`;
  return graph.engine.graph.outgoing(link.node, 'documents').some((e) => e.target === moved);
}

/** The name a document links by: a symbol's own name, a file's base name. */
function linkedName(target: string): { file: string; name: string } {
  const rest = target.slice(target.indexOf(':') + 1);
  const hash = rest.indexOf('#');
  const file = hash < 0 ? rest : rest.slice(0, hash);
  if (hash < 0) return { file, name: rest.slice(rest.lastIndexOf('/') + 1) };
  const symbol = rest.slice(hash + 1);
  return { file, name: symbol.slice(symbol.lastIndexOf('.') + 1) };
}

/** Resolves the open `binding_broken` alerts of re-ingested documents whose link is gone from the text or followed the move; returns how many. */
export async function resolveFixedLinks(graph: GraphService, alerts: AlertOutbox, docs: readonly string[], slice: () => Promise<void>): Promise<number> {
  const texts = new Set(docs.filter((p) => TEXT_FORMATS.has(converterFor(p)?.name ?? '')));
  if (texts.size === 0) return 0;
  let resolved = 0;
  const read = new Map<string, string | null>();
  for (const a of await alerts.openAbout('binding_broken', texts)) {
    const target = typeof a.details?.target === 'string' ? a.details.target : null;
    if (!target || !a.node || !a.path) continue;
    const { file, name } = linkedName(target);
    const movedTo = typeof a.details?.moved_to === 'string' ? a.details.moved_to : null;
    if (!read.has(a.path)) read.set(a.path, await readFile(join(graph.engine.root, a.path), 'utf8').catch(() => null));
    const text = read.get(a.path) ?? null;
    const why = movedTo && linkFollowedMove(graph, { node: a.node, target }, file, movedTo) ? `${a.path} links to it under ${movedTo}` : text !== null && !text.includes(name) ? `${a.path} no longer names ${name}` : null;
    if (why && (await alerts.resolve(a.dedup, why))) resolved++;
    await slice();
  }
  return resolved;
}
