/**
 * The history miner: one `git log` child process per update, parsed as it streams, and stored in
 * the workspace store so a re-run costs only the commits made since (the last processed commit is
 * kept with the log). A rewritten history (the stored head is no longer an ancestor) is re-mined
 * whole. A read-only server keeps what it mined in memory and never writes the store.
 */
import type { EngineMemory } from '../graph/api.ts';
import { readGitHead } from '../graph/api.ts';
import { requireRepo, runGit, type RepoInfo } from './git.ts';
import { LOG_FORMAT, LogParser, type MinedCommit } from './log-parser.ts';

export const HISTORY_NAMESPACE = 'history';
/** Commits per stored row: an update rewrites only the last row, so a small row keeps a 10-commit update's write small. */
const CHUNK = 250;

/** What the stored log's state row records. */
interface MinedState {
  head: string;
  count: number;
  chunks: number;
  maxCommits: number;
  /** Commits per row (absent: 1000, the size of older versions). */
  chunk?: number;
}

/** The outcome of one update. */
export interface MineReport {
  head: string | null;
  commits: number;
  /** Commits read from git by this update (0 when the head had not moved). */
  added: number;
  mode: 'cached' | 'incremental' | 'full' | 'empty';
  shallow: boolean;
  /** True when the output cap or maxCommits stopped the log before the first commit. */
  truncated: boolean;
  elapsedMs: number;
}

/** Miner settings. */
export interface MinerOptions {
  /** Newest commits kept (default 50,000). */
  maxCommits?: number;
  /** Output cap of one git log run (default 512 MiB). */
  maxBytes?: number;
  timeoutMs?: number;
}

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

/** Mines and caches one workspace's git history (oldest commit first). */
export class HistoryMiner {
  private commits: MinedCommit[] = [];
  private head: string | null = null;
  private loaded = false;
  private truncated = false;
  /** Set once git could not read some blobs: later runs ask for names only. */
  private light = false;
  /** The stored rows use another row size: the next save rewrites them all. */
  private resave = false;
  private running: Promise<MineReport> | null = null;
  /** Bumped whenever the commit list changes (indexes cache on it). */
  version = 0;

  constructor(
    private readonly root: string,
    private readonly store: () => EngineMemory | null,
    private readonly writable: boolean,
    private readonly options: MinerOptions = {},
  ) {}

  /** The mined commits, oldest first (call update first). */
  log(): readonly MinedCommit[] {
    return this.commits;
  }

  /** Brings the mined log up to HEAD; concurrent callers share one run. */
  update(): Promise<MineReport> {
    if (this.running) return this.running;
    this.running = this.run().finally(() => (this.running = null));
    return this.running;
  }

  private async run(): Promise<MineReport> {
    const t0 = performance.now();
    const repo = requireRepo(this.root);
    const head = readGitHead(repo.gitDir);
    const report = (mode: MineReport['mode'], added: number): MineReport => ({
      head: this.head,
      commits: this.commits.length,
      added,
      mode,
      shallow: repo.shallow,
      truncated: this.truncated,
      elapsedMs: Math.round(performance.now() - t0),
    });
    if (!head) {
      this.commits = [];
      this.head = null;
      this.version++;
      return report('empty', 0);
    }
    if (!this.loaded) await this.load();
    if (head === this.head) return report('cached', 0);
    const max = this.options.maxCommits ?? 50_000;
    if (this.head) {
      // One git run: the new commits, and (--boundary) whether the stored head is their ancestor.
      const stored = this.head;
      const fresh = await this.readLog(repo, [`${stored}..${head}`, '--boundary'], max);
      if (fresh.boundary.has(stored)) {
        this.commits.push(...fresh.commits.reverse());
        const dropped = Math.max(0, this.commits.length - max);
        if (dropped) {
          this.commits.splice(0, dropped);
          this.truncated = true;
        }
        this.head = head;
        this.version++;
        this.save(dropped > 0 || fresh.commits.length === 0 ? 'all' : fresh.commits.length);
        return report('incremental', fresh.commits.length);
      }
      // History was rewritten (rebase, reset, force-push): mine it whole again.
    }
    const all = (await this.readLog(repo, [head], max)).commits;
    this.truncated = all.length >= max;
    this.commits = all.reverse();
    this.head = head;
    this.version++;
    this.save('all');
    return report('full', all.length);
  }

  private async readLog(repo: RepoInfo, range: string[], max: number): Promise<{ commits: MinedCommit[]; boundary: Set<string> }> {
    // A partial clone fetches missing blobs on demand: line counts would hit the network, so it gets names only.
    const light = repo.partial || this.light;
    const run = async (names: boolean) => {
      const parser = new LogParser();
      const diff = names ? ['--name-only', '--no-renames'] : ['-M', '--numstat'];
      const r = await runGit(this.root, ['log', ...diff, '-z', '--relative', LOG_FORMAT, `-n${max}`, ...range, '--', '.'], {
        maxBytes: this.options.maxBytes ?? 512 * 1024 * 1024,
        timeoutMs: this.options.timeoutMs ?? 120_000,
        onData: (chunk) => parser.push(chunk),
      });
      return { r, parser };
    };
    let { r, parser } = await run(light);
    if (r.code !== 0 && !r.truncated && !light && /unable to read|missing blob|bad object/.test(r.stderr)) {
      // Some blobs are absent (a trimmed mirror): names and renames-by-name only, no line counts.
      this.light = true;
      ({ r, parser } = await run(true));
    }
    if (r.truncated) this.truncated = true;
    if (r.code !== 0 && !r.truncated) {
      // An unborn branch: no history rather than a crash.
      if (/does not have any commits|bad default revision|unknown revision/.test(r.stderr)) return { commits: [], boundary: new Set() };
      throw new Error(`git log failed: ${r.stderr.trim().slice(0, 300)}`);
    }
    return { commits: parser.finish(), boundary: parser.boundary };
  }

  /** Reads the stored log (a chunk per turn, so a big history never blocks the loop in one parse). */
  private async load(): Promise<void> {
    this.loaded = true;
    const mem = this.store();
    if (!mem) return;
    const state = mem.get<MinedState>(HISTORY_NAMESPACE, 'state')?.value;
    if (!state?.head || state.maxCommits !== (this.options.maxCommits ?? 50_000)) return;
    const commits: MinedCommit[] = [];
    for (let i = 0; i < state.chunks; i++) {
      const chunk = mem.get<MinedCommit[]>(HISTORY_NAMESPACE, chunkKey(i))?.value;
      if (!chunk) return; // a torn write from an older version: mine again
      commits.push(...chunk);
      await yieldTurn();
    }
    if (commits.length !== state.count) return;
    this.resave = (state.chunk ?? 1000) !== CHUNK;
    this.commits = commits;
    this.head = state.head;
    this.version++;
  }

  /** Writes the log: only the chunks that changed when `added` commits were appended. */
  private save(added: number | 'all'): void {
    const mem = this.writable ? this.store() : null;
    if (!mem) return;
    const chunks = Math.ceil(this.commits.length / CHUNK);
    const firstDirty = added === 'all' || this.resave ? 0 : Math.floor((this.commits.length - added) / CHUNK);
    this.resave = false;
    const old = mem.get<MinedState>(HISTORY_NAMESPACE, 'state')?.value;
    mem.transaction(() => {
      for (let i = firstDirty; i < chunks; i++) mem.set(HISTORY_NAMESPACE, chunkKey(i), this.commits.slice(i * CHUNK, (i + 1) * CHUNK));
      for (let i = chunks; i < (old?.chunks ?? 0); i++) mem.delete(HISTORY_NAMESPACE, chunkKey(i));
      mem.set(HISTORY_NAMESPACE, 'state', { head: this.head ?? '', count: this.commits.length, chunks, maxCommits: this.options.maxCommits ?? 50_000, chunk: CHUNK } satisfies MinedState);
    });
  }
}

function chunkKey(i: number): string {
  return `log/${String(i).padStart(6, '0')}`;
}
