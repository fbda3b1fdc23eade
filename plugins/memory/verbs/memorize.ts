/** memorize: stores claims anchored to workspace evidence, or re-verifies stored ones. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type, writeFileAtomic } from '../../../core/index.ts';
import { CLAIM_KINDS, type ClaimKind } from '../claims.ts';
import { anchorLabel } from '../evidence.ts';
import { SCOPES } from '../scopes.ts';
import { memoryCall } from '../call.ts';
import { claimsDocument } from '../mirror.ts';

/** The reference's kinds (entity, state, event) are all facts here. */
const KINDS = [...CLAIM_KINDS, 'entity', 'state', 'event'] as const;
const MAX_CLAIMS_PER_CALL = 50;

const Evidence = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ path: Type.Optional(Type.String()), lines: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: 2 })), node: Type.Optional(Type.String()) }),
]);

export const memorizeVerb = defineVerb({
  name: 'memorize',
  description: 'Store claims (facts, decisions, gotchas…) anchored to files, line ranges or nodes, for every agent; or re-verify stored claims.',
  input: Type.Object({
    agent_id: AgentId,
    claims: Type.Optional(
      Type.Array(
        Type.Object({
          text: Type.Optional(Type.String({ minLength: 1 })),
          label: Type.Optional(Type.String({ minLength: 1 })),
          kind: Type.Optional(StringEnum(KINDS)),
          confidence: Type.Optional(Type.Union([Type.Number(), Type.String()])),
          evidence: Type.Optional(Type.Array(Evidence, { description: 'path, path:12-30, node id, or {path,lines}/{node}' })),
          supersedes: Type.Optional(Type.String({ description: 'Claim id this one replaces' })),
        }),
        { maxItems: MAX_CLAIMS_PER_CALL },
      ),
    ),
    node_label: Type.Optional(Type.String({ description: 'Topic; anchors claims that cite no evidence when it names a node' })),
    title: Type.Optional(Type.String()),
    scope: Type.Optional(StringEnum(SCOPES, { default: 'project', description: 'agent (private), project, team' })),
    reverify: Type.Optional(Type.Array(Type.String(), { description: 'Claim ids to re-hash at their current evidence' })),
    state: Type.Optional(Type.String({ maxLength: 64, description: 'Your state label (e.g. draft, verified), kept with each claim' })),
    namespace: Type.Optional(Type.String({ maxLength: 128, description: 'Group the claims are filed under, kept with each claim' })),
    mode: StringEnum(['merge', 'replace'] as const, { default: 'merge', description: 'replace: retire your earlier claims on this node_label' }),
    output_path: Type.Optional(Type.String({ description: 'Also write the stored claims as one Markdown file (workspace path)' })),
    ingest_after: Type.Boolean({ default: true, description: 'Ingest output_path at once, so its claims are doc nodes' }),
  }),
  output: Type.Object({
    not_reverified: Type.Optional(Type.Array(Type.Object({}))),
    reverified: Type.Optional(Type.Array(Type.String())),
    output_path: Type.Optional(Type.String()),
    ingested: Type.Optional(Type.Boolean()),
    replaced: Type.Optional(Type.Array(Type.String())),
    markdown: Type.Optional(Type.Array(Type.String())),
    stored: Type.Optional(Type.Array(Type.Object({}))),
    duplicates: Type.Optional(Type.Array(Type.Object({}))),
  }),
  tiers: ['essential'],
  effect: 'write',
  stages: ['handoff', 'review'],
  next: 'orient',
  guide:
    'Each claim is one statement (`text`, or the reference name `label`) with evidence: a repo-relative file, `file:12-30`, a node id (from seek) or a symbol name. Each piece is hashed when stored; later results mark the claim `stale` with what changed when that text changes or the node disappears. ' +
    'Evidence outside the workspace or not found is refused. A near-identical claim already visible in the same scope is reported under `duplicates`, not stored again. `supersedes` retires an older claim. ' +
    'Scopes: `agent` is private to you (never mirrored to Markdown), `project` is every agent of the workspace, `team` is shared doctrine (prefer promote). Shared claims are also written as Markdown files in the memory folder (default .m1nd/memory/, `options.memory.folder` in m1nd.config.ts). ' +
    '`reverify: [ids]` re-hashes claims you checked still hold after their evidence changed. ' +
    '`mode: "replace"` retires (supersedes) your earlier claims on the same `node_label` and scope. `state` and `namespace` are labels kept and shown with each claim. `output_path` also writes the stored claims as one Markdown document at that workspace path, ingested at once unless `ingest_after: false`.',
  handler: async (args, call) => {
    const { memory, graph } = await memoryCall(call);
    const claims = (args.claims ?? []).map((c, i) => {
      const text = c.text ?? c.label;
      if (!text) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `claims[${i}] has neither text nor label`, { hint: 'give each claim its statement in `text`' });
      const kind: ClaimKind = (CLAIM_KINDS as readonly string[]).includes(c.kind ?? '') ? (c.kind as ClaimKind) : 'fact';
      return { text, kind, confidence: c.confidence, evidence: c.evidence, supersedes: c.supersedes };
    });
    if (claims.length === 0 && !args.reverify?.length) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'nothing to do: pass claims to store or reverify ids', {
        hint: 'memorize({"agent_id":"…","claims":[{"text":"…","evidence":["src/a.ts:10-20"]}]})',
      });
    }
    if (args.mode === 'replace' && !args.node_label) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'mode "replace" retires your earlier claims on a node_label: give node_label', { hint: 'pass node_label, or mode "merge" to add claims beside the earlier ones' });
    }
    const out = claims.length
      ? await memory.memorize(call.agentId, { claims, scope: args.scope ?? 'project', topic: args.node_label, title: args.title, namespace: args.namespace, state: args.state, replace: args.mode === 'replace' })
      : null;
    const re = args.reverify?.length ? await memory.reverify(call.agentId, args.reverify) : null;
    let written: { output_path: string; ingested: boolean } | null = null;
    if (args.output_path && out?.stored.length) {
      const target = graph.run(() => graph.engine.resolvePath(args.output_path!));
      writeFileAtomic(target.absolute, claimsDocument(args.title ?? args.node_label ?? `Memory of ${call.agentId}`, out.stored));
      if (args.ingest_after) await graph.reingestPaths([target.relative], call.signal);
      written = { output_path: target.relative, ingested: args.ingest_after };
    }
    return {
      ...(out
        ? {
            stored: out.stored.map((c) => ({ id: c.id, kind: c.kind, scope: c.scope, evidence: c.evidence.map(anchorLabel), ...(c.supersedes ? { supersedes: c.supersedes } : {}) })),
            duplicates: out.duplicates.map((d) => ({ text: d.text, existing: { id: d.existing.id, text: d.existing.text, author: d.existing.author, similarity: d.similarity } })),
            ...(out.mirrored.length ? { markdown: out.mirrored } : {}),
            ...(out.replaced.length ? { replaced: out.replaced } : {}),
            ...(written ?? {}),
          }
        : {}),
      ...(re ? { reverified: re.refreshed.map((c) => c.id), ...(re.failed.length ? { not_reverified: re.failed.map((f) => ({ ...f, why: 'evidence gone: supersede the claim instead' })) } : {}) } : {}),
    };
  },
});
