/**
 * Alerts: conditions the daemon (or another plugin) found while no agent was looking — a watched
 * file deleted or moved, a document link broken, a memory claim turned stale. One row per condition
 * in the state store (namespace `alerts`, the team store when one is configured, so every server of
 * the team sees them): the row key is derived from the condition's dedup key, so raising the same
 * condition again updates the open alert instead of adding one. Acknowledgement is per agent.
 * An alert meant for one agent (a private claim's) lives in the machine-local store instead: private
 * claims never reach the team store, and neither do their text and author through an alert.
 */
import { createHash } from 'node:crypto';
import type { StateStore } from '../state/api.ts';

export const ALERTS_NAMESPACE = 'alerts';
/** Rows kept; past it the oldest resolved (then oldest acknowledged) alerts are dropped. */
export const MAX_ALERTS = 2000;
/** New alerts between two size checks (the namespace may exceed MAX_ALERTS by this much). */
const TRIM_EVERY = 50;

export type AlertSeverity = 'info' | 'warning' | 'error';
export type AlertKind = 'file_deleted' | 'file_moved' | 'binding_broken' | 'claim_stale' | 'ingest_failed' | 'queue_overflow';

/** A condition as a raiser describes it. */
export interface AlertInput {
  kind: AlertKind;
  severity: AlertSeverity;
  /** Who raised it: `daemon`, `auto_ingest`, a plugin name. */
  source: string;
  /** Workspace path the alert is about. */
  path?: string;
  /** Graph node the alert is about. */
  node?: string;
  message: string;
  /** One condition, one alert: the same key updates the open alert. */
  dedup: string;
  /** Only this agent sees it (a private claim's alert); absent: everyone. */
  audience?: string;
  details?: Record<string, unknown>;
}

/** An alert as stored. */
export interface Alert extends AlertInput {
  id: string;
  status: 'open' | 'resolved';
  raised_at: number;
  last_seen_at: number;
  /** Times the condition was reported differently while open. */
  count: number;
  resolved_at?: number;
  resolution?: string;
  /** agent id → when it acknowledged. */
  acked_by: Record<string, number>;
  /**
   * The checkouts (servers' workspaces, hashed) that reported the condition while open: another
   * checkout where it does not hold (another machine's files) does not resolve it; the last of them
   * seeing it clear does. Absent on alerts of older versions (then any checkout resolves them).
   */
  seen_by?: string[];
}

/** The row key of a dedup key: short, stable, safe in any store. */
export function alertId(dedup: string): string {
  return `al_${createHash('sha1').update(dedup).digest('hex').slice(0, 16)}`;
}

/** Alerts in the state stores; `onRaised` hears of every newly opened alert. */
export class AlertBook {
  private readonly added = new Map<StateStore, number>();
  constructor(
    /** The store of alerts meant for everyone (the team store when one is configured). */
    private readonly store: () => StateStore,
    private readonly onRaised: (alert: Alert) => void = () => undefined,
    /** False while a store does not exist yet (never created by a read). */
    private readonly readable: (store: StateStore) => boolean = () => true,
    /** The store of alerts meant for one agent (machine-local); default the same store. */
    private readonly privateStore: () => StateStore = store,
    /** This checkout (see `Alert.seen_by`); '' records none. */
    private readonly checkout: () => Promise<string> = async () => '',
  ) {}

  /** The stores to look in that exist: the shared one, then the local one when it is another. */
  private stores(): StateStore[] {
    const shared = this.store();
    const local = this.privateStore();
    return (local === shared ? [shared] : [shared, local]).filter((s) => this.readable(s));
  }

  /** Opens an alert for a condition, or refreshes the open one; returns it and whether it is new. */
  async raise(input: AlertInput, now = Date.now()): Promise<{ alert: Alert; opened: boolean }> {
    const id = alertId(input.dedup);
    const store = input.audience ? this.privateStore() : this.store();
    const reporter = await this.checkout();
    for (let attempt = 0; attempt < 4; attempt++) {
      const row = await store.get<Alert>(ALERTS_NAMESPACE, id);
      const old = row?.value;
      const opened = !old || old.status !== 'open';
      const seen = !reporter || (old?.seen_by ?? []).includes(reporter);
      // Still open, unchanged and already reported from here: nothing to write (a condition seen every tick costs no store write).
      if (!opened && old.message === input.message && seen) return { alert: old, opened: false };
      const seenBy = reporter ? [reporter] : [];
      const alert: Alert = opened
        ? { ...input, id, status: 'open', raised_at: now, last_seen_at: now, count: 1, acked_by: {}, seen_by: seenBy }
        : {
            ...old,
            ...input,
            id,
            status: 'open',
            raised_at: old.raised_at,
            last_seen_at: now,
            // Reported differently: counted; only confirmed by another checkout: not.
            count: old.message === input.message ? old.count : old.count + 1,
            acked_by: old.acked_by,
            seen_by: seen ? old.seen_by : [...(old.seen_by ?? []), ...seenBy],
          };
      // Compare-and-swap: two servers seeing the same condition open it once.
      const put = await store.put(ALERTS_NAMESPACE, id, alert, { ifVersion: row ? row.version : null });
      if (!put) continue;
      if (opened) {
        this.onRaised(alert);
        // New rows grow the namespace: check its size every TRIM_EVERY of them, not on each.
        const added = (this.added.get(store) ?? 0) + 1;
        this.added.set(store, added);
        if (!old && added % TRIM_EVERY === 1) await this.trim(store);
      }
      return { alert, opened };
    }
    throw new Error(`alert ${id} kept changing under this server; retry the tick`);
  }

  /** Resolves the open alert of a condition (it no longer holds); returns it, or null when none was open. */
  async resolve(dedup: string, resolution: string, now = Date.now()): Promise<Alert | null> {
    const id = alertId(dedup);
    // The condition's alert is in one of the stores (the local one when it is private).
    for (const store of this.stores()) {
      const row = await store.get<Alert>(ALERTS_NAMESPACE, id);
      if (!row || row.value.status !== 'open') continue;
      // Reported by other checkouts too: it clears here, not there (their files are theirs).
      const reporter = await this.checkout();
      const others = (row.value.seen_by ?? []).filter((c) => c !== reporter);
      if (reporter && others.length > 0) {
        if (others.length < row.value.seen_by!.length) await store.put(ALERTS_NAMESPACE, id, { ...row.value, seen_by: others }, { ifVersion: row.version });
        return null;
      }
      const resolved: Alert = { ...row.value, status: 'resolved', resolved_at: now, resolution };
      const done = await store.put(ALERTS_NAMESPACE, id, resolved, { ifVersion: row.version });
      return done !== null ? resolved : null;
    }
    return null;
  }

  /** The open alert of a condition, if any. */
  async openAlert(dedup: string): Promise<Alert | undefined> {
    for (const store of this.stores()) {
      const row = await store.get<Alert>(ALERTS_NAMESPACE, alertId(dedup));
      if (row?.value.status === 'open') return row.value;
    }
    return undefined;
  }

  /** Every alert an agent may see, newest first. */
  async all(agentId: string): Promise<Alert[]> {
    const rows: Alert[] = [];
    for (const store of this.stores()) for (const r of await store.list<Alert>(ALERTS_NAMESPACE, 'al_', MAX_ALERTS * 2)) rows.push(r.value);
    return rows
      .filter((a) => !a.audience || a.audience === agentId)
      .sort((a, b) => b.last_seen_at - a.last_seen_at || a.id.localeCompare(b.id));
  }

  /** Marks alerts acknowledged by one agent; returns the ids acknowledged and those not found. */
  async ack(agentId: string, ids: readonly string[], now = Date.now()): Promise<{ acked: string[]; unknown: string[] }> {
    const acked: string[] = [];
    const unknown: string[] = [];
    // An id given twice is answered once.
    for (const id of new Set(ids)) {
      let done = false;
      for (const store of this.stores()) {
        for (let attempt = 0; attempt < 4 && !done; attempt++) {
          const row = await store.get<Alert>(ALERTS_NAMESPACE, id);
          if (!row || (row.value.audience && row.value.audience !== agentId)) break;
          const put = await store.put(ALERTS_NAMESPACE, id, { ...row.value, acked_by: { ...row.value.acked_by, [agentId]: now } }, { ifVersion: row.version });
          done = put !== null;
        }
        if (done) break;
      }
      (done ? acked : unknown).push(id);
    }
    return { acked, unknown };
  }

  /** Counts by status, for status verbs. */
  async counts(agentId: string): Promise<{ open: number; unacked: number; resolved: number }> {
    const list = await this.all(agentId);
    const open = list.filter((a) => a.status === 'open');
    return { open: open.length, unacked: open.filter((a) => !a.acked_by[agentId]).length, resolved: list.length - open.length };
  }

  /** Keeps the namespace bounded: drops the oldest resolved, then acknowledged, alerts past MAX_ALERTS. */
  private async trim(store: StateStore): Promise<void> {
    const rows = await store.list<Alert>(ALERTS_NAMESPACE, 'al_', MAX_ALERTS * 2);
    if (rows.length <= MAX_ALERTS) return;
    const rank = (a: Alert) => (a.status === 'resolved' ? 0 : Object.keys(a.acked_by).length > 0 ? 1 : 2);
    const victims = rows.map((r) => r.value).sort((a, b) => rank(a) - rank(b) || a.last_seen_at - b.last_seen_at);
    for (const a of victims.slice(0, rows.length - MAX_ALERTS)) await store.delete(ALERTS_NAMESPACE, a.id);
  }
}
