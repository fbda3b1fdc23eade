/** boot_memory: small key/value facts kept for every session (get, set, list, delete, status). */
import { AgentId, countValueTokens, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import type { StateService, StateStore } from '../../state/api.ts';
import { scopesOfTier, TierParam, writeScopeOfTier, type Scope } from '../scopes.ts';

export const BOOT_NAMESPACE = 'memory.boot';
const ACTIONS = ['set', 'get', 'list', 'delete', 'status'] as const;
/** A boot value is small by design (it is loaded into every north packet). */
const MAX_VALUE_TOKENS = 500;
const MAX_KEYS = 200;

/** A boot memory entry as stored. */
export interface BootEntry {
  key: string;
  value: unknown;
  scope: Scope;
  tags: string[];
  source_refs: string[];
  set_by: string;
  set_at: number;
}

/** Boot entries visible in the given scopes, newest first. */
export async function bootEntries(store: StateStore, scopes: readonly Scope[]): Promise<BootEntry[]> {
  return (await store.list<BootEntry>(BOOT_NAMESPACE, '', MAX_KEYS * 2))
    .map((r) => r.value)
    .filter((e) => scopes.includes(e.scope))
    .sort((a, b) => b.set_at - a.set_at);
}

export const bootMemoryVerb = defineVerb({
  name: 'boot_memory',
  description: 'Small key/value facts every session starts with: set, get, list, delete, status.',
  input: Type.Object({
    agent_id: AgentId,
    action: StringEnum(ACTIONS),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    value: Type.Optional(Type.Unknown()),
    tags: Type.Optional(Type.Array(Type.String())),
    source_refs: Type.Optional(Type.Array(Type.String())),
    tier: Type.Optional(TierParam),
  }),
  output: Type.Object({ action: Type.String() }),
  tiers: ['full'],
  effect: (args) => (args.action === 'delete' ? 'destructive' : args.action === 'set' ? 'write' : 'read'),
  maxEffect: 'destructive',
  stages: ['orient'],
  guide:
    'Boot memory is for a handful of canonical facts (the test command, the release branch, who owns what), not for findings — use memorize for those. ' +
    'Values are JSON; an entry (value, tags, source_refs) is at most 500 tokens, 200 keys. `tier`: project (default for writes), medulla (team), project+medulla (default for reads). north includes the boot entries.',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    await graph.fresh();
    // Boot memory is team state (project and team scopes): the team store when one is set.
    const memory = call.service<StateService>('state').team;
    const needKey = () => {
      if (!args.key) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `action "${args.action}" needs a key`, { hint: 'boot_memory({"action":"list"}) shows the keys' });
      return args.key;
    };
    const readScopes = scopesOfTier(args.tier);
    const rowKey = (scope: Scope, key: string) => `${scope}/${key}`;
    switch (args.action) {
      case 'set': {
        const key = needKey();
        if (args.value === undefined) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'action "set" needs a value', { hint: 'pass value (any JSON)' });
        // The whole entry is bounded (tags and source refs are stored and listed with the value).
        const tokens = [args.value, args.tags, args.source_refs].reduce<number>((sum, part) => sum + (part === undefined || (Array.isArray(part) && part.length === 0) ? 0 : countValueTokens(part)), 0);
        if (tokens > MAX_VALUE_TOKENS) {
          throw new M1ndError(ErrorCodes.MEMORY_CLAIM_TOO_LARGE, `the entry (value, tags, source_refs) is ${tokens} tokens (limit ${MAX_VALUE_TOKENS})`, {
            hint: 'keep boot values, tags and source refs short; store findings with memorize',
            data: { tokens, limit: MAX_VALUE_TOKENS },
          });
        }
        const scope = writeScopeOfTier(args.tier);
        const existing = await memory.get(BOOT_NAMESPACE, rowKey(scope, key));
        if (!existing && (await bootEntries(memory, ['project', 'team'])).length >= MAX_KEYS) {
          throw new M1ndError(ErrorCodes.MEMORY_QUOTA, `boot memory holds ${MAX_KEYS} keys`, { hint: 'delete keys no longer needed' });
        }
        const entry: BootEntry = { key, value: args.value, scope, tags: args.tags ?? [], source_refs: args.source_refs ?? [], set_by: call.agentId, set_at: Date.now() };
        await memory.put(BOOT_NAMESPACE, rowKey(scope, key), entry);
        return { action: 'set', key, scope, replaced: Boolean(existing) };
      }
      case 'get': {
        const key = needKey();
        const rows = await Promise.all(readScopes.filter((s) => s !== 'agent').map((s) => memory.get<BootEntry>(BOOT_NAMESPACE, rowKey(s, key))));
        const found = rows.map((r) => r?.value).filter((e): e is BootEntry => Boolean(e));
        if (found.length === 0) {
          // Set under the other tier: name the call that reads it.
          const other = (['project', 'team'] as const).filter((sc) => !readScopes.includes(sc));
          const elsewhere = (await Promise.all(other.map((sc) => memory.get<BootEntry>(BOOT_NAMESPACE, rowKey(sc, key))))).find(Boolean)?.value;
          throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no boot memory key "${key}"${elsewhere ? ` in tier ${args.tier}` : ''}`, {
            hint: elsewhere
              ? `it is set in the ${elsewhere.scope} scope: boot_memory({"action":"get","key":"${key}","tier":"${elsewhere.scope === 'team' ? 'medulla' : 'project'}"})`
              : 'boot_memory({"action":"list"}) shows the keys',
          });
        }
        return { action: 'get', entries: found.map(view) };
      }
      case 'delete': {
        const key = needKey();
        const scope = writeScopeOfTier(args.tier);
        return { action: 'delete', key, scope, deleted: await memory.delete(BOOT_NAMESPACE, rowKey(scope, key)) };
      }
      case 'list':
        return { action: 'list', entries: (await bootEntries(memory, readScopes)).map(view) };
      default: {
        const all = await bootEntries(memory, ['project', 'team']);
        return { action: 'status', keys: all.length, project: all.filter((e) => e.scope === 'project').length, team: all.filter((e) => e.scope === 'team').length, limit: MAX_KEYS };
      }
    }
  },
});

function view(e: BootEntry) {
  return { key: e.key, value: e.value, scope: e.scope, ...(e.tags.length ? { tags: e.tags } : {}), ...(e.source_refs.length ? { source_refs: e.source_refs } : {}), set_by: e.set_by, set_at: new Date(e.set_at).toISOString() };
}
