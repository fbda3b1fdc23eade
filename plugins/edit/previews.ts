/**
 * Staged edits: `edit_preview` keeps a proposed file content in memory per agent (bounded in count
 * and size, expiring after five minutes) until `edit_commit` writes it or it lapses. Nothing here
 * touches the disk.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, M1ndError, type SessionStore } from '../../core/index.ts';

/** A staged edit. */
export interface Preview {
  preview_id: string;
  file_path: string;
  /** Content hash of the file the preview was made against ('absent' for a new file). */
  base_hash: string;
  new_content: string;
  description?: string;
  created_at: number;
}

/** How long a preview stays committable. */
export const PREVIEW_TTL_MS = 5 * 60_000;
/** Previews one agent may hold (the oldest is dropped beyond this). */
export const MAX_PREVIEWS_PER_AGENT = 16;
/** Largest content a preview may stage. */
export const MAX_PREVIEW_BYTES = 2 * 1024 * 1024;
/** Longest file content (or hunk text) a write verb accepts, in characters: a whole file, not free text. The call's argument bytes are capped too (M1ND_MAX_ARGUMENT_BYTES, 1 MiB by default). */
export const MAX_CONTENT_CHARS = MAX_PREVIEW_BYTES;

const BAG = 'edit:previews';

function book(session: SessionStore, agentId: string): Map<string, Preview> {
  const map = session.state(agentId, BAG, () => new Map<string, Preview>());
  const now = Date.now();
  for (const [id, p] of map) if (now - p.created_at > PREVIEW_TTL_MS) map.delete(id);
  return map;
}

/** Stages a preview for the agent; drops its oldest when it holds too many. */
export function stagePreview(session: SessionStore, agentId: string, p: Omit<Preview, 'preview_id' | 'created_at'>): Preview {
  if (Buffer.byteLength(p.new_content) > MAX_PREVIEW_BYTES) {
    throw new M1ndError(ErrorCodes.STATE_LIMIT, `a preview stages at most ${MAX_PREVIEW_BYTES} bytes`, { hint: 'write a file this large with apply (expected_hash guards it)' });
  }
  const map = book(session, agentId);
  while (map.size >= MAX_PREVIEWS_PER_AGENT) map.delete(map.keys().next().value!);
  const preview: Preview = { ...p, preview_id: `pv_${randomBytes(6).toString('hex')}`, created_at: Date.now() };
  map.set(preview.preview_id, preview);
  return preview;
}

/** The agent's live preview by id, or null (expired, committed, or never staged by this agent). */
export function findPreview(session: SessionStore, agentId: string, id: string): Preview | null {
  return book(session, agentId).get(id) ?? null;
}

/** The agent's live preview by id; STATE_NOT_FOUND naming the call that stages one otherwise. */
export function requirePreview(session: SessionStore, agentId: string, id: string): Preview {
  const p = findPreview(session, agentId, id);
  if (p) return p;
  throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no live preview "${id}" for agent "${agentId}" (previews expire after 5 minutes and are used once)`, {
    hint: `stage it again with edit_preview({"agent_id":"${agentId}","file_path":"…","new_content":"…"})`,
  });
}

/** Removes a preview (after it was committed). */
export function dropPreview(session: SessionStore, agentId: string, id: string): void {
  book(session, agentId).delete(id);
}
