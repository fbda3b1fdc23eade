/**
 * Hand edits of the Markdown mirror flow back into the store: a person (or a reviewer in a pull
 * request) edits `<folder>/<claim id>.md`; the watcher reads it and updates the claim's text, kind,
 * confidence, title and topic. Evidence, author, scope and ids are not editable by hand (evidence
 * is re-anchored by `memorize` with `reverify`); a file the parser cannot read, or a value out of
 * range, is reported in the log and leaves the stored claim as it was. The mirror never rewrites a
 * hand-edited file, so the person's formatting stays. Files edited while no server watched are taken
 * when the watch starts (at the next start, or the first mirror write).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../../core/index.ts';
import { CLAIM_KINDS, type Claim, type ClaimBook, type ClaimKind } from './claims.ts';
import { claimMarkdown } from './mirror.ts';

/** What a person may change in a claim file. */
export interface EditedFields {
  text: string;
  kind?: string;
  confidence?: number;
  title?: string;
  topic?: string;
}

const CLAIM_FILE = /^(c_[0-9a-f]{10})\.md$/;

/** Reads a claim file: front matter values (JSON-quoted as written, or plain) and the body text. */
export function parseClaimMarkdown(markdown: string): EditedFields | { error: string } {
  const text = markdown.replace(/\r\n/g, '\n');
  if (!text.startsWith('---\n')) return { error: 'no front matter (the file must start with ---)' };
  const end = text.indexOf('\n---\n', 4);
  if (end < 0) return { error: 'the front matter is not closed by ---' };
  const fields: Record<string, unknown> = {};
  for (const line of text.slice(4, end).split('\n')) {
    const m = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (!m || m[2] === '') continue;
    try {
      fields[m[1]] = JSON.parse(m[2]);
    } catch {
      fields[m[1]] = m[2].trim();
    }
  }
  let body = text.slice(end + 5).replace(/^\n+/, '');
  // The heading line is the title (or "Claim <id>"), rendered from the front matter.
  if (body.startsWith('# ')) body = body.slice(body.indexOf('\n') + 1 || body.length);
  const evidence = body.lastIndexOf('\n## Evidence\n');
  if (evidence >= 0) body = body.slice(0, evidence);
  const confidence = fields.confidence === undefined ? undefined : Number(fields.confidence);
  return {
    text: body.trim(),
    kind: typeof fields.kind === 'string' ? fields.kind : undefined,
    confidence,
    title: typeof fields.title === 'string' ? fields.title : undefined,
    topic: typeof fields.topic === 'string' ? fields.topic : undefined,
  };
}

/** The claim with a file's edits applied, or why the edit is refused; null when nothing changed. */
export function editedClaim(claim: Claim, edit: EditedFields, maxClaimChars: number, now: number): { claim: Claim } | { error: string } | null {
  if (edit.text === '') return { error: 'the claim text is empty' };
  if (edit.text.length > maxClaimChars) return { error: `the claim text has ${edit.text.length} characters (limit ${maxClaimChars})` };
  if (edit.kind !== undefined && !(CLAIM_KINDS as readonly string[]).includes(edit.kind)) return { error: `kind "${edit.kind}" is not one of ${CLAIM_KINDS.join(', ')}` };
  if (edit.confidence !== undefined && !(edit.confidence >= 0 && edit.confidence <= 1)) return { error: 'confidence must be a number from 0 to 1' };
  const next: Claim = {
    ...claim,
    text: edit.text,
    kind: (edit.kind as ClaimKind | undefined) ?? claim.kind,
    confidence: edit.confidence ?? claim.confidence,
    ...(edit.title !== undefined ? { title: edit.title } : {}),
    ...(edit.topic !== undefined ? { topic: edit.topic } : {}),
  };
  const same = next.text === claim.text && next.kind === claim.kind && next.confidence === claim.confidence && next.title === claim.title && next.topic === claim.topic;
  if (same) return null;
  return { claim: { ...next, edited_by_hand_at: now } };
}

/** Watches the mirror folder and applies hand edits to the claims they mirror. */
export class MirrorEditWatcher {
  private watcher: FSWatcher | null = null;

  constructor(
    private readonly book: () => ClaimBook,
    private readonly maxClaimChars: number,
    private readonly log: Logger,
  ) {}

  /** Starts watching `dir` (absolute); a second call is a no-op. */
  start(dir: string): void {
    if (this.watcher) return;
    this.watcher = watch(dir, { ignoreInitial: true, depth: 0, awaitWriteFinish: { stabilityThreshold: 80, pollInterval: 20 } });
    const onFile = (file: string) => void this.safely(file);
    this.watcher.on('add', onFile).on('change', onFile).on('error', (e) => this.log.warn(`memory mirror watcher: ${(e as Error).message}`));
    // Edits made while no server watched (or in the moment before the watch was up) are taken once it is.
    this.watcher.on('ready', () => {
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        return;
      }
      for (const name of names) if (CLAIM_FILE.test(name)) void this.safely(path.join(dir, name));
    });
  }

  /** apply, with a store failure logged instead of thrown (a watcher has nobody to throw to). */
  private async safely(file: string): Promise<void> {
    try {
      await this.apply(file);
    } catch (error) {
      this.log.warn(`memory: hand edit of ${path.basename(file)} not applied: ${(error as Error).message}`);
    }
  }

  /** Applies one file's edits; returns what happened (for tests and the log). */
  async apply(file: string): Promise<'updated' | 'unchanged' | 'refused' | 'not-a-claim'> {
    const m = CLAIM_FILE.exec(path.basename(file));
    if (!m) return 'not-a-claim';
    const claim = (await this.book().all()).find((c) => c.id === m[1]);
    if (!claim || claim.scope === 'agent') return 'not-a-claim';
    let markdown: string;
    try {
      markdown = readFileSync(file, 'utf8');
    } catch {
      return 'not-a-claim';
    }
    // The mirror's own write of this claim: nothing to take back.
    if (markdown === claimMarkdown(claim)) return 'unchanged';
    const parsed = parseClaimMarkdown(markdown);
    const result = 'error' in parsed ? parsed : editedClaim(claim, parsed, this.maxClaimChars, Date.now());
    if (result === null) return 'unchanged';
    if ('error' in result) {
      this.log.warn(`memory: hand edit of ${path.basename(file)} not applied: ${result.error}; the stored claim is unchanged`);
      return 'refused';
    }
    await this.book().save([result.claim]);
    this.log.info(`memory: claim ${claim.id} updated from a hand edit of its Markdown file`);
    return 'updated';
  }

  async stop(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }
}
