/**
 * Content search over a federation's members (federated-view.ts): each member's files read by its own
 * engine, paths coming back as `<repo>::path`, one time budget for the whole scan.
 */
import type { SearchMatch, SearchOptions, SearchResult } from './engine/content-search.ts';
import { NAMESPACE_SEPARATOR, type FederationMember } from './federated-view-names.ts';

/** The members a scope covers, with the scope each member is searched under (never under its nested members' folders). */
export type SearchTarget = { member: FederationMember; scope: string | undefined };

/**
 * Content search over `targets` (searchTargets of the view), each member's files read by its own
 * engine, as steps of one file each; paths come back as `<repo>::path`. One time budget for the
 * whole scan.
 */
export function* searchMembers(targets: readonly SearchTarget[], query: string, options: SearchOptions = {}): Generator<void, SearchResult> {
  const t0 = performance.now();
  const budget = options.timeBudgetMs ?? 3000;
  const maxResults = options.maxResults ?? 50;
  const out: SearchResult = { matches: [], totalMatches: 0, filesScanned: 0, filesMatched: 0, truncated: false, elapsedMs: 0, timedOut: false };
  if (options.countOnly) out.counts = [];
  for (const { member, scope } of targets) {
    if (!member.engine.storeExists()) continue;
    const left = budget - (performance.now() - t0);
    if (left <= 0) {
      out.timedOut = true;
      break;
    }
    const exclude = member.nested?.map((f) => f.folder);
    const r = yield* member.engine.searchSteps(query, { ...options, scope, exclude, maxResults: Math.max(0, maxResults - out.matches.length), timeBudgetMs: left });
    const ns = (path: string) => `${member.name}${NAMESPACE_SEPARATOR}${path}`;
    out.matches.push(...r.matches.map((m): SearchMatch => ({ ...m, path: ns(m.path) })));
    out.totalMatches += r.totalMatches;
    out.filesScanned += r.filesScanned;
    out.filesMatched += r.filesMatched;
    out.truncated ||= r.truncated;
    out.timedOut ||= r.timedOut;
    if (out.counts && r.counts) out.counts.push(...r.counts.map((c) => ({ ...c, path: ns(c.path) })));
  }
  out.matches = out.matches.slice(0, maxResults);
  out.truncated ||= out.totalMatches > out.matches.length && !options.countOnly;
  out.elapsedMs = performance.now() - t0;
  return out;
}
