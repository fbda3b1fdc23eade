/**
 * Moving a workspace's shared state from the embedded store to the team store, for a team that
 * switches to PostgreSQL: project and team claims, boot memory, missions, team trails and team
 * learned feedback are copied; private claims, private trails, agent feedback and locks (which live
 * for a session) stay where they are. A row is inserted only where the team store has no row of
 * that key, so re-running copies nothing twice and never overwrites what the team wrote since; the
 * whole copy is one transaction. The local rows are left in place (going back to the embedded store
 * finds them).
 */
import { hostname } from 'node:os';
import type { StateRow, StateStore } from './types.ts';

/** What is copied, per namespace: which rows are shared state (the others stay local). */
export const IMPORTED: readonly { namespace: string; label: string; shared: (row: StateRow<any>) => boolean }[] = [
  { namespace: 'memory.claims', label: 'claims', shared: (r) => r.value?.scope !== 'agent' },
  { namespace: 'memory.boot', label: 'boot_memory', shared: (r) => r.value?.scope !== 'agent' },
  { namespace: 'memory.missions', label: 'missions', shared: () => true },
  { namespace: 'trails', label: 'trails', shared: (r) => r.value?.visibility !== 'private' },
  // The team layer of learned feedback (agent layers are the `learned@…` namespaces): weights and team events, not the local counter or checkpoints.
  { namespace: 'learned', label: 'learned', shared: (r) => /^(node|term|edge):/.test(r.key) || (r.key.startsWith('event:') && (r.value?.scope ?? 'team') === 'team') },
];

/** Where the record of each import is kept in the team store. */
export const IMPORTS_NAMESPACE = 'state.imports';
const MAX_ROWS = 1_000_000;

export interface ImportCount {
  /** Shared rows found in the local store. */
  found: number;
  /** Copied now. */
  imported: number;
  /** Already in the team store under the same key (an earlier import, or the team's own): left as it is. */
  present: number;
  /** Rows left local because they are private. */
  private: number;
}

export interface ImportReport {
  from: string;
  to: string;
  dry_run: boolean;
  counts: Record<string, ImportCount>;
  imported: number;
}

/** Copies the shared rows of `local` into `team` (see the file comment). */
export async function importLocalState(local: StateStore, team: StateStore, opts: { from: string; to: string; dryRun: boolean; by: string }): Promise<ImportReport> {
  const plan = await Promise.all(
    IMPORTED.map(async (ns) => {
      const rows = await local.list<any>(ns.namespace, '', MAX_ROWS);
      return { ...ns, rows: rows.filter(ns.shared), privateRows: rows.filter((r) => !ns.shared(r)).length };
    }),
  );
  const counts: Record<string, ImportCount> = {};
  const run = async (tx: Pick<StateStore, 'get' | 'put'>) => {
    for (const ns of plan) {
      const c: ImportCount = { found: ns.rows.length, imported: 0, present: 0, private: ns.privateRows };
      for (const r of ns.rows) {
        if (opts.dryRun) {
          if (await tx.get(ns.namespace, r.key)) c.present++;
          else c.imported++;
        } else if (await tx.put(ns.namespace, r.key, r.value, { ifVersion: null })) c.imported++;
        else c.present++;
      }
      counts[ns.label] = c;
    }
  };
  if (opts.dryRun) await run(team);
  else {
    await team.transaction(async (tx) => {
      await run(tx);
      const total = Object.values(counts).reduce((n, c) => n + c.imported, 0);
      if (total > 0) await tx.put(IMPORTS_NAMESPACE, `${new Date().toISOString()}@${hostname()}`, { from: opts.from, by: opts.by, counts });
    });
  }
  return { from: opts.from, to: opts.to, dry_run: opts.dryRun, counts, imported: Object.values(counts).reduce((n, c) => n + c.imported, 0) };
}
