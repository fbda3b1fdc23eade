/**
 * The repository's doctrine document ("soul"): AGENTS.md by default, then CLAUDE.md, then
 * .cursorrules, or a path given per call or in m1nd.config.ts. Its text is data: returned as it
 * is, never executed or merged into the server's own doctrine.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { ErrorCodes, M1ndError } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';

export const DEFAULT_SOUL_PATHS = ['AGENTS.md', 'CLAUDE.md', '.cursorrules'];

/** A doctrine document read from the workspace. */
export interface SoulDocument {
  path: string;
  text: string;
}

/** One heading and the lines under it (up to the next heading of the same or a higher level). */
export interface SoulSection {
  heading: string;
  level: number;
  from: number;
  to: number;
}

/** Finds and reads the doctrine document (explicit path first); PATH_NOT_FOUND naming what was tried. */
export function readSoul(graph: GraphService, explicit?: string, configured?: string): SoulDocument {
  const tried = explicit ? [explicit] : configured ? [configured] : DEFAULT_SOUL_PATHS;
  for (const candidate of tried) {
    const p = graph.run(() => graph.engine.resolvePath(candidate));
    if (existsSync(p.absolute) && statSync(p.absolute).isFile()) return { path: p.relative, text: readFileSync(p.absolute, 'utf8') };
  }
  throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `no doctrine document: tried ${tried.join(', ')}`, {
    hint: 'write an AGENTS.md at the workspace root, pass soul_path, or set options.memory.soulPath in m1nd.config.ts',
    data: { tried },
  });
}

/** The Markdown sections of a document, in order (1-based line numbers). */
export function sections(text: string): SoulSection[] {
  const lines = text.split('\n');
  const heads: { heading: string; level: number; line: number }[] = [];
  let fenced = false;
  lines.forEach((l, i) => {
    if (/^\s*(```|~~~)/.test(l)) fenced = !fenced;
    const m = !fenced && /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(l);
    if (m) heads.push({ heading: m[2], level: m[1].length, line: i + 1 });
  });
  return heads.map((h, i) => {
    const end = heads.slice(i + 1).find((n) => n.level <= h.level);
    return { heading: h.heading, level: h.level, from: h.line, to: end ? end.line - 1 : lines.length };
  });
}
