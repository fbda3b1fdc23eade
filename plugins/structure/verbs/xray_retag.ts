/** xray_retag: bulk add/remove/set of tags on the nodes a selector picks; dry run, then commit against the tag store's version. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { engineCall, slicePace } from '../../graph/api.ts';
import { structureCall } from '../call.ts';
import { allTags, appendLedger, MAX_TAGS_PER_NODE, setTags, tagsVersion } from '../xray/ledger.ts';

const Tag = Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\w:./@-]+$' });
const MAX_NODES = 50_000;
/** Tag rows written per transaction, and the main-thread time a commit's writes take before the loop runs again. */
const TAG_BATCH = 500;
const TAG_SLICE_MS = 8;

export const xrayRetagVerb = defineVerb({
  name: 'xray_retag',
  description: 'Bulk add/remove/set tags on nodes picked by selector (tags, kind, path prefix). dry_run (default) shows the change; commit applies it.',
  input: Type.Object({
    agent_id: AgentId,
    selector: Type.Object(
      {
        filter_tags: Type.Optional(Type.Array(Tag, { maxItems: 16, description: 'Nodes carrying all of these tags' })),
        node_type: Type.Optional(StringEnum(['file', 'function', 'method', 'class', 'interface', 'type', 'section'], { description: 'Node kind' })),
        path_prefix: Type.Optional(Type.String({ maxLength: 1024, workspacePath: true, description: 'Nodes under this path' })),
      },
      { description: 'Which nodes (at least one field)' },
    ),
    op: StringEnum(['add', 'remove', 'set'], { description: 'add, remove, or replace all tags' }),
    tags: Type.Array(Tag, { maxItems: 16, description: 'Tags the op uses' }),
    mode: Type.Optional(StringEnum(['dry_run', 'commit'], { default: 'dry_run', description: 'Plan only, or apply' })),
    expect_version: Type.Optional(Type.String({ maxLength: 80, description: 'tags_version of the dry run: commit refuses if tags changed since' })),
  }),
  output: Type.Object({
    mode: Type.String(),
    op: Type.String(),
    matched: Type.Number(),
    changed: Type.Number(),
    tags_version: Type.String(),
    sample: Type.Array(Type.Object({ id: Type.String(), before: Type.Array(Type.Unknown()), after: Type.Array(Type.Unknown()) })),
    next: Type.Optional(Type.String()),
    ledger_seq: Type.Optional(Type.Number()),
  }),
  tiers: ['full'],
  effect: (args) => (args.mode === 'commit' ? 'write' : 'read'),
  maxEffect: 'write',
  stages: ['review'],
  next: 'xray_ledger',
  handler: async (args, call) => {
    const { graph, engine } = await structureCall(call);
    const sel = args.selector;
    if (!sel.filter_tags?.length && !sel.node_type && !sel.path_prefix) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'the selector is empty: it would retag the whole graph', { hint: 'give selector.filter_tags, selector.node_type and/or selector.path_prefix' });
    }
    const prefix = sel.path_prefix ? engineCall(() => engine.resolvePath(sel.path_prefix!)).relative.replace(/\/+$/, '') : '';
    const version = tagsVersion(graph);
    const tags = allTags(graph);
    const wanted = sel.filter_tags ?? [];
    const changes: { id: string; before: string[]; after: string[] }[] = [];
    let matched = 0;
    const consider = (id: string, kind: string, path: string) => {
      if (sel.node_type && kind !== sel.node_type) return;
      if (prefix && path !== prefix && !path.startsWith(`${prefix}/`)) return;
      const old = tags.get(id) ?? [];
      if (!wanted.every((t) => old.includes(t))) return;
      matched++;
      const next = args.op === 'set' ? [...new Set(args.tags)] : args.op === 'add' ? [...new Set([...old, ...args.tags])] : old.filter((t) => !args.tags.includes(t));
      if (next.length > MAX_TAGS_PER_NODE) throw new M1ndError(ErrorCodes.STATE_LIMIT, `${id} would carry ${next.length} tags (at most ${MAX_TAGS_PER_NODE})`, { hint: 'remove tags first, or use op "set"' });
      if (next.length === old.length && next.every((t) => old.includes(t))) return;
      changes.push({ id, before: old, after: [...next].sort() });
    };
    if (wanted.length) {
      // Tagged nodes only: the tag store is the smaller side.
      for (const id of tags.keys()) {
        const n = engine.graph.get(id);
        if (n) consider(id, n.kind, n.path);
      }
    } else for (const [, n] of engine.graph.nodes()) consider(n.id, n.kind, n.path);
    if (matched > MAX_NODES) throw new M1ndError(ErrorCodes.STATE_LIMIT, `the selector picks ${matched} nodes (at most ${MAX_NODES})`, { hint: 'narrow the selector' });
    const summary = { mode: args.mode ?? 'dry_run', op: args.op, matched, changed: changes.length, tags_version: version, sample: changes.slice(0, 20) };
    if (args.mode !== 'commit') return { ...summary, next: changes.length ? `xray_retag with mode "commit" and expect_version "${version}"` : 'nothing to change' };
    if (args.expect_version && args.expect_version !== version) {
      throw new M1ndError(ErrorCodes.STATE_STALE, `tags changed since the dry run (tags_version ${version}, expected ${args.expect_version})`, { hint: 'run xray_retag in dry_run again, review, and commit with its tags_version' });
    }
    // TAG_BATCH nodes a transaction, paced between: one autocommit per node held the loop ~260 ms
    // for the 1,000 nodes under plugins/graph in m1nd's own graph.
    const pace = slicePace(TAG_SLICE_MS);
    for (let i = 0; i < changes.length; i += TAG_BATCH) {
      if (i > 0) await pace();
      graph.engine.memory.transaction(() => {
        for (const ch of changes.slice(i, i + TAG_BATCH)) setTags(graph, ch.id, ch.after);
      });
    }
    const after = tagsVersion(graph);
    const entry = changes.length
      ? appendLedger(graph, { verb: 'xray_retag', agent_id: call.agentId, summary: `${args.op} [${args.tags.join(', ')}] on ${changes.length} node(s)`, nodes: changes.length, sample: changes.slice(0, 10).map((c) => c.id), version_before: version, version_after: after })
      : null;
    return { ...summary, tags_version: after, ...(entry ? { ledger_seq: entry.seq } : {}) };
  },
});
