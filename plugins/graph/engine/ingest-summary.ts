/** An ingest's summary from its counts and the built graph (per-kind counts computed when read). */
import type { GraphBuilder } from './build.ts';
import type { IngestSummary } from './ingest-types.ts';
import { summarizeParseErrors } from './parse-report.ts';
import type { SkipReason, SkippedPath } from './walk.ts';

const MAX_SKIP_LIST = 200;

/** The counts of one run that its summary reports. */
export interface SummaryInput {
  mode: IngestSummary['mode'];
  generation: number;
  scanned: number;
  parsed: number;
  reused: number;
  unchanged: number;
  removed: number;
  skipped: SkippedPath[];
  skippedByReason: Partial<Record<SkipReason, number>>;
  git: IngestSummary['git'];
  relinked: number;
  parseWorkers: number;
  elapsedMs: number;
  phases: IngestSummary['phases'];
}

/** The summary of a run from its counts and the builder it leaves. */
export function summarize(builder: GraphBuilder, s: SummaryInput): IngestSummary {
  const g = builder.graph;
  // Counted when read (the ingest verb's output), like the per-kind counts below: the count visits
  // every file's imports (~5-20 ms on 2,000 files), which a watcher's or the daemon's re-ingest never reads.
  const countImports = (): IngestSummary['imports'] => {
    const imports = { resolved: 0, unresolved: 0, external: 0, notFound: 0 };
    for (const path of builder.filePaths()) {
      for (const imp of builder.importsOf(path)) {
        if (imp.unresolved === undefined) imports.resolved++;
        else {
          imports.unresolved++;
          if (imp.unresolved === 'external') imports.external++;
          else imports.notFound++;
        }
      }
    }
    return imports;
  };
  let imports: IngestSummary['imports'] | undefined;
  const round = (x: number): number => Math.round(x * 10) / 10;
  // The per-kind and per-relation counts scan the whole graph (~10 ms on 70K nodes and 200K edges):
  // computed when read (the ingest verb's output), not for every watcher or edit re-ingest of a file.
  let byKind: IngestSummary['nodesByKind'] | undefined;
  let byRelation: IngestSummary['edgesByRelation'] | undefined;
  return {
    mode: s.mode,
    generation: s.generation,
    files: {
      scanned: s.scanned,
      parsed: s.parsed,
      reused: s.reused,
      unchanged: s.unchanged,
      removed: s.removed,
      skipped: Object.entries(s.skippedByReason).reduce((a, [k, v]) => a + (k === 'unsupported' ? 0 : v ?? 0), 0),
    },
    skipped: s.skipped.slice(0, MAX_SKIP_LIST),
    skippedTruncated: s.skipped.length > MAX_SKIP_LIST,
    skippedByReason: s.skippedByReason,
    // Counted when read too: the type checker's pass, which the ingest verb can wait for, adds and
    // replaces call edges in this same graph after the run.
    get nodes() {
      return g.nodeCount;
    },
    get nodesByKind() {
      return (byKind ??= g.nodeCountsByKind());
    },
    get edges() {
      return g.edgeCount;
    },
    get edgesByRelation() {
      return (byRelation ??= g.edgeCountsByRelation());
    },
    get imports() {
      return (imports ??= countImports());
    },
    parseErrors: summarizeParseErrors(builder.parseErrorFiles()),
    git: s.git,
    relinkedFiles: s.relinked,
    parseWorkers: s.parseWorkers,
    elapsedMs: round(s.elapsedMs),
    phases: Object.fromEntries(Object.entries(s.phases).map(([k, v]) => [k, round(v)])) as IngestSummary['phases'],
  };
}
