/** soul_check: verifies the doctrine document claim by claim against the code; an honesty report with a freshness receipt. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { textHash } from '../evidence.ts';
import { checkSoul } from '../soul/checks.ts';
import { readSoul } from '../soul/doctrine.ts';
import { headCommit } from '../workspace-identity.ts';

const MAX_LISTED = 40;

/** The curator report checked like the doctrine: each path, symbol, script, target and version it names. */
function curatorVerdict(graph: GraphService, curator: { author: string; report: string }, checker: string) {
  const { claims, lines_not_checkable } = checkSoul(graph, curator.report);
  const falseClaims = claims.filter((c) => c.verdict === 'false');
  return {
    author: curator.author,
    checked_by: checker,
    honest: falseClaims.length === 0,
    counts: { checked: claims.length, verified: claims.filter((c) => c.verdict === 'verified').length, false: falseClaims.length, not_checkable_lines: lines_not_checkable },
    false: falseClaims.slice(0, MAX_LISTED),
    content_hash: textHash(curator.report),
  };
}

/** soul_check over the configured doctrine path. */
export function soulCheckVerb(configured?: string) {
  return defineVerb({
    name: 'soul_check',
    description: 'Check the doctrine document against the code: named paths, symbols, scripts, make targets and versions; false ones listed, with a freshness receipt.',
    input: Type.Object({
      agent_id: AgentId,
      soul_path: Type.Optional(Type.String({ minLength: 1 })),
      verify_curator_report: Type.Optional(
        Type.Object(
          { author: Type.String({ minLength: 1, maxLength: 128, description: 'Agent that wrote the report' }), report: Type.String({ minLength: 1, maxLength: 65_536, description: 'The report text (markdown)' }) },
          { description: "A curator's report on the doctrine, checked like the doctrine; never by its own author" },
        ),
      ),
    }),
    output: Type.Object({
      curator_report: Type.Optional(Type.Object({ author: Type.String(), checked_by: Type.String(), honest: Type.Boolean(), counts: Type.Object({}), false: Type.Array(Type.Unknown()), content_hash: Type.String() })),
      path: Type.String(),
      honest: Type.Boolean(),
      counts: Type.Object({ checked: Type.Number(), verified: Type.Number(), false: Type.Number(), unchecked: Type.Number(), not_checkable_lines: Type.Number() }),
      false: Type.Array(Type.Object({})),
      unchecked: Type.Array(Type.Object({})),
      verified: Type.Array(Type.String()),
      receipt: Type.Object({ path: Type.String(), content_hash: Type.String(), commit: Type.Union([Type.String(), Type.Null()]), graph_generation: Type.Number(), checked_at: Type.String() }),
    }),
    tiers: ['full'],
    effect: 'read',
    stages: ['review', 'orient'],
    next: 'soul_read',
    guide:
      'Checked: inline code and link targets that look like paths (exist in the workspace), symbols written as `name()`, dotted or camel/Pascal case (exist in the graph), `npm|pnpm|yarn|bun [run] X` (package.json script), `make X` in code (Makefile target), and "Node 20" / "TypeScript 5.9"-style versions (package.json engines or dependencies). ' +
      'Everything else — intent, taste, rules — is counted under `not_checkable`, never reported as verified. The receipt (content hash, commit, time) says which text was checked. ' +
      '`verify_curator_report: {author, report}` checks a curator\'s report the same way, under `curator_report`; its author cannot verify it.',
    handler: async (args, call) => {
      const curator = args.verify_curator_report;
      if (curator && curator.author === call.agentId) {
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, "a curator report is verified by another agent than its author", {
          hint: `ask an agent other than "${curator.author}" to call soul_check with verify_curator_report`,
        });
      }
      const graph = call.service<GraphService>('graph');
      await graph.fresh();
      const doc = readSoul(graph, args.soul_path, configured);
      const { claims, lines_not_checkable } = checkSoul(graph, doc.text);
      const of = (v: string) => claims.filter((c) => c.verdict === v);
      const falseClaims = of('false');
      return {
        path: doc.path,
        honest: falseClaims.length === 0,
        counts: { checked: claims.length, verified: of('verified').length, false: falseClaims.length, unchecked: of('unchecked').length, not_checkable_lines: lines_not_checkable },
        false: falseClaims.slice(0, MAX_LISTED),
        unchecked: of('unchecked').slice(0, MAX_LISTED),
        verified: of('verified').slice(0, MAX_LISTED).map((c) => `${c.line}: ${c.claim}`),
        receipt: { path: doc.path, content_hash: textHash(doc.text), commit: headCommit(graph.engine.root), graph_generation: graph.engine.generation, checked_at: new Date().toISOString() },
        ...(curator ? { curator_report: curatorVerdict(graph, curator, call.agentId) } : {}),
      };
    },
  });
}
