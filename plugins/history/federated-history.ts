/**
 * History on the federated view: every repository's own git mined by its own miner (the workspace's
 * is the history service's; a sibling's log is kept in the sibling's graph store under this
 * workspace's store, never inside the sibling), paths namespaced `<repo>::path`, and the logs merged
 * by commit time into one index. Co-change therefore never pairs files of two sibling repositories
 * (no commit touches both), while churn, timelines and ghost edges answer for any member's file. A
 * member nested in another (`ws` and `ws/lib`) owns the files under its root, in the outer member's
 * log too, and a commit both logs hold (one git repository) is one commit (nested-history.ts). A
 * member without git history is left out (`without_history` in the report).
 */
import { createHash } from 'node:crypto';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import { findGitDir, type CodeGraphEngine, type FederatedEngine, type FederationMember } from '../graph/api.ts';
import { HistoryIndex, type SweepRules } from './history-index.ts';
import type { MinedCommit } from './log-parser.ts';
import { HistoryMiner, type MineReport } from './miner.ts';
import { historyPathOf, joinChanges, nestingGroups } from './nested-history.ts';

/** What the merge needs of the workspace's history service. */
export interface FederatedHistorySource {
  /** The workspace's own miner (shared, so its stored log is mined once). */
  readonly miner: HistoryMiner;
  readonly maxCommits: number;
  readonly sweep: SweepRules;
  readonly writable: boolean;
}

/** The merged index and how each repository was read. */
export interface FederatedHistoryView {
  index: HistoryIndex;
  mined: MineReport;
  withoutHistory: string[];
}

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

/** A member whose log was read. */
interface Read {
  member: FederationMember;
  miner: HistoryMiner;
  report: MineReport;
  /** The git repository it read (its git directory), or the member's name when none is found. */
  repo: string;
}

/** The largest of a count over members reading one git repository (a nested member's commits are the outer one's too), summed over repositories. */
function perRepository(read: readonly Read[], count: (r: MineReport) => number): number {
  const most = new Map<string, number>();
  for (const r of read) {
    most.set(r.repo, Math.max(most.get(r.repo) ?? 0, count(r.report)));
  }
  return [...most.values()].reduce((s, n) => s + n, 0);
}

/** One merged history per federated engine (rebuilt when a member's log changes). */
class FederatedHistory {
  private readonly miners = new Map<CodeGraphEngine, HistoryMiner>();
  private built: { key: string; index: HistoryIndex } | null = null;
  private building: Promise<HistoryIndex> | null = null;

  constructor(
    private readonly view: FederatedEngine,
    private readonly source: FederatedHistorySource,
  ) {}

  private minerOf(engine: CodeGraphEngine, own: boolean): HistoryMiner {
    if (own) return this.source.miner;
    let m = this.miners.get(engine);
    if (!m) this.miners.set(engine, (m = new HistoryMiner(engine.root, () => (engine.storeExists() ? engine.memory : null), this.source.writable, { maxCommits: this.source.maxCommits })));
    return m;
  }

  async current(): Promise<FederatedHistoryView> {
    const read: Read[] = [];
    const withoutHistory: string[] = [];
    for (const m of this.view.members) {
      const miner = this.minerOf(m.engine, m.own);
      try {
        const report = await miner.update();
        if (report.mode === 'empty') withoutHistory.push(m.name);
        else read.push({ member: m, miner, report, repo: findGitDir(m.engine.root) ?? m.name });
      } catch (error) {
        if (error instanceof M1ndError && error.code === ErrorCodes.HISTORY_NO_GIT) withoutHistory.push(m.name);
        else throw error;
      }
    }
    const key = read.map((r) => `${r.member.name}:${r.miner.version}`).join('|');
    if (this.built?.key !== key) {
      this.building ??= this.merge(read).finally(() => (this.building = null));
      const index = await this.building;
      this.built = { key, index };
    }
    const heads = read.map((r) => `${r.member.name}:${r.report.head ?? ''}`).join('\n');
    const modes = new Set(read.map((r) => r.report.mode));
    const mined: MineReport = {
      // One head per repository: the view's "head" is a digest of them all.
      head: read.length ? createHash('sha1').update(heads).digest('hex') : null,
      commits: perRepository(read, (r) => r.commits),
      added: perRepository(read, (r) => r.added),
      mode: read.length === 0 ? 'empty' : modes.has('full') ? 'full' : modes.has('incremental') ? 'incremental' : 'cached',
      shallow: read.some((r) => r.report.shallow),
      truncated: read.some((r) => r.report.truncated),
      elapsedMs: read.reduce((s, r) => s + r.report.elapsedMs, 0),
    };
    return { index: this.built!.index, mined, withoutHistory };
  }

  /**
   * Namespaces every repository's commits (a nested member's files under its own name) and merges
   * them oldest first, in slices; a commit of members nested in one another is held once.
   */
  private async merge(read: readonly Read[]): Promise<HistoryIndex> {
    const merged: MinedCommit[] = [];
    const groups = nestingGroups(read.map((r) => r.member));
    const held = new Map<string, MinedCommit>();
    let n = 0;
    for (const r of read) {
      const ns = historyPathOf(r.member);
      const group = groups.get(r.member.name);
      for (const c of r.miner.log()) {
        if (++n % 2000 === 0) await yieldTurn();
        const files = c.files.map((f) => ({ ...f, path: ns(f.path), ...(f.from !== undefined ? { from: ns(f.from) } : {}) }));
        const key = group === undefined ? null : `${group}\0${c.hash}`;
        const twin = key === null ? undefined : held.get(key);
        if (twin) {
          twin.files = joinChanges(twin.files, files);
          continue;
        }
        const commit = { ...c, files };
        merged.push(commit);
        if (key !== null) held.set(key, commit);
      }
    }
    merged.sort((a, b) => a.time - b.time); // stable: each repository's own order is kept on equal times
    return HistoryIndex.build(merged, this.source.sweep);
  }
}

const histories = new WeakMap<FederatedEngine, FederatedHistory>();

/** The merged history of a federated view. */
export function federatedHistory(view: FederatedEngine, source: FederatedHistorySource): Promise<FederatedHistoryView> {
  let h = histories.get(view);
  if (!h) histories.set(view, (h = new FederatedHistory(view, source)));
  return h.current();
}
