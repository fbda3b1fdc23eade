/**
 * `m1nd://team/{namespace}`: the rows of a team-state namespace as keys, versions and write times
 * (never values: a private claim's text is no one else's). Its use is the subscription — a client
 * subscribed to it gets notifications/resources/updated when any server writes that namespace.
 */
import type { ResourceDefinition } from '../../core/index.ts';
import type { StateStore } from './types.ts';

/** Namespaces the resource serves (what the built-in families keep in the team store). */
export const TEAM_NAMESPACES = ['locks', 'locks.nodes', 'memory.claims', 'memory.missions', 'trails', 'learned'] as const;
const ROWS_SHOWN = 500;

export function teamResource(store: StateStore): ResourceDefinition {
  return {
    uri: 'm1nd://team/{namespace}',
    name: 'team-state',
    title: 'Team state namespace',
    description: 'Keys and versions of a team-state namespace (locks, memory.claims, trails, …); subscribe to hear of other servers’ writes',
    mimeType: 'application/json',
    list: () => TEAM_NAMESPACES.map((ns) => ({ uri: `m1nd://team/${ns}`, name: ns, mimeType: 'application/json' })),
    read: async ({ namespace }) => {
      if (!(TEAM_NAMESPACES as readonly string[]).includes(namespace)) return undefined;
      const rows = await store.list(namespace, '', ROWS_SHOWN + 1);
      const shown = rows.slice(0, ROWS_SHOWN).map((r) => ({ key: r.key, version: r.version, updated: new Date(r.updatedAt).toISOString() }));
      return { text: JSON.stringify({ namespace, store: store.kind, rows: shown, truncated: rows.length > ROWS_SHOWN }, null, 2) };
    },
    watch: ({ namespace }, changed) => store.onChange((c) => c.namespace === namespace && changed()),
    complete: { namespace: (prefix) => TEAM_NAMESPACES.filter((ns) => ns.startsWith(prefix)) },
  };
}
