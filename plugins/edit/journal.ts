/**
 * Atomic multi-file writes with a write-ahead journal under the store directory. Every new content
 * is first written to a synced temp file beside its target and every existing target is kept under
 * a backup link; the journal (written durably) then lists temps, backups and targets; only then are
 * the temps renamed over their targets. A failure rolls the renamed files back from their backups;
 * a crash leaves the journal, and `recoverJournals` at the next start rolls the batch back (or, when
 * the journal says every rename finished, completes its cleanup), so no batch is ever half applied.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { copyFile, link, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { commitStaged, discardStaged, stageFileAsync, syncDir, TEMP_MARKER, writeDurable, type StagedFile } from '../../core/index.ts';

/** One file of a journaled batch. */
interface JournalEntry {
  target: string;
  temp: string;
  /** Hard link (or copy) of the original; null when the batch creates the file. */
  backup: string | null;
}

interface JournalRecord {
  batch_id: string;
  agent_id: string;
  started_at: number;
  /** `renaming` until every rename is done; `committed` after. */
  state: 'renaming' | 'committed';
  entries: JournalEntry[];
}

/** What recovery did with one interrupted batch. */
export interface RecoveredBatch {
  batch_id: string;
  agent_id: string;
  outcome: 'rolled_back' | 'completed';
  files: string[];
}

/** Test hooks, set only by tests: after this many renames the process kills itself / the rename fails. */
const CRASH_ENV = 'M1ND_TEST_BATCH_CRASH_AFTER_RENAMES';
const FAIL_ENV = 'M1ND_TEST_BATCH_FAIL_AFTER_RENAMES';

/** The journal folder of a store. */
export function journalDir(storeDir: string): string {
  return join(storeDir, 'edit-journal');
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function writeJournal(dir: string, record: JournalRecord): string {
  const file = join(dir, `${record.batch_id}.json`);
  const temp = `${file}.${randomBytes(3).toString('hex')}.tmp`;
  writeDurable(temp, Buffer.from(JSON.stringify(record)));
  renameSync(temp, file);
  syncDir(dir);
  return file;
}

/** Keeps the original under a backup link beside it (I/O in libuv's pool: a batch links up to 200 files). */
async function keepBackup(target: string, tag: string): Promise<string> {
  const backup = join(dirname(target), `${TEMP_MARKER}${tag}-bak-${basename(target)}`);
  try {
    await link(target, backup);
  } catch {
    await copyFile(target, backup); // filesystems without hard links
  }
  return backup;
}

/** Puts every entry back as it was before the batch (backups renamed back, created files removed). */
function rollBack(entries: readonly JournalEntry[]): void {
  for (const e of entries) {
    if (e.backup && existsSync(e.backup)) {
      renameSync(e.backup, e.target);
      // rename() between two links of one file (a target never renamed over) does nothing: drop the link.
      unlinkQuiet(e.backup);
    } else if (!e.backup) unlinkQuiet(e.target);
    unlinkQuiet(e.temp);
  }
  for (const d of new Set(entries.map((e) => dirname(e.target)))) syncDir(d);
}

/**
 * Writes every file or none: stages all temps and keeps a backup of each original (written, synced
 * and linked off the main thread), then, in one turn of the event loop, checks the targets are still
 * as planned (`stillAsPlanned` throws when one changed meanwhile: another call had turns while the
 * temps were written; a backup linked before is then of the content the check saw), journals,
 * renames and commits the journal; the backups are removed after, off the main thread (a crash
 * meanwhile: recovery finishes the cleanup). Throws after restoring the originals when anything fails.
 */
export async function writeBatchAtomic(storeDir: string, agentId: string, files: readonly { absolute: string; content: string }[], stillAsPlanned: () => void): Promise<void> {
  const batchId = `batch_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const tag = batchId.slice(-8);
  const staged: StagedFile[] = [];
  const entries: JournalEntry[] = [];
  try {
    for (const f of files) staged.push(await stageFileAsync(f.absolute, f.content, tag));
    for (const s of staged) {
      let backup: string | null = null;
      try {
        if (s.existed) backup = await keepBackup(s.target, tag);
      } catch (error) {
        stillAsPlanned(); // a target removed meanwhile is a stale base, not a failed write
        throw error;
      }
      entries.push({ target: s.target, temp: s.temp, backup });
    }
    stillAsPlanned();
  } catch (error) {
    for (const s of staged) discardStaged(s);
    for (const e of entries) if (e.backup) unlinkQuiet(e.backup);
    throw error;
  }
  const dir = journalDir(storeDir);
  mkdirSync(dir, { recursive: true });
  const record: JournalRecord = { batch_id: batchId, agent_id: agentId, started_at: Date.now(), state: 'renaming', entries };
  const journal = writeJournal(dir, record);
  const crashAfter = Number(process.env[CRASH_ENV] ?? NaN);
  const failAfter = Number(process.env[FAIL_ENV] ?? NaN);
  try {
    staged.forEach((s, i) => {
      if (i === crashAfter) process.kill(process.pid, 'SIGKILL');
      if (i === failAfter) throw new Error(`rename of ${s.target} failed (${FAIL_ENV})`);
      commitStaged(s);
    });
    for (const d of new Set(entries.map((e) => dirname(e.target)))) syncDir(d);
  } catch (error) {
    rollBack(entries);
    unlinkQuiet(journal);
    throw error;
  }
  writeJournal(dir, { ...record, state: 'committed' });
  for (const e of entries) if (e.backup) await unlink(e.backup).catch(() => undefined);
  unlinkQuiet(journal);
}

/** Finishes every batch a crash interrupted: rolled back unless its journal says all renames were done. */
export function recoverJournals(storeDir: string): RecoveredBatch[] {
  const dir = journalDir(storeDir);
  if (!existsSync(dir)) return [];
  const out: RecoveredBatch[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name);
    if (!name.endsWith('.json')) {
      unlinkQuiet(file); // a journal write that never completed: its batch never renamed anything
      continue;
    }
    let record: JournalRecord;
    try {
      record = JSON.parse(readFileSync(file, 'utf8')) as JournalRecord;
    } catch {
      unlinkQuiet(file);
      continue;
    }
    if (record.state === 'committed') {
      for (const e of record.entries) {
        if (e.backup) unlinkQuiet(e.backup);
        unlinkQuiet(e.temp);
      }
    } else rollBack(record.entries);
    unlinkQuiet(file);
    out.push({ batch_id: record.batch_id, agent_id: record.agent_id, outcome: record.state === 'committed' ? 'completed' : 'rolled_back', files: record.entries.map((e) => e.target) });
  }
  syncDir(dir);
  return out;
}
