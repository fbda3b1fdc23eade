/**
 * Turning a verb's `path` / `node_id` into a document and its canonical Markdown: the path goes
 * through the workspace checker, the converter is picked by extension, and the artefact is reused
 * from the store while the source bytes are unchanged.
 */
import { createHash } from 'node:crypto';
import { opendirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { CONVERTERS, DOCUMENT_EXTENSIONS, converterFor, producerOf } from './converters.ts';
import { isStored, keepRecord, loadRecord, saveRecord, type DocumentRecord } from './document-book.ts';

/** Largest source a converter is given. */
export const MAX_SOURCE_BYTES = 32 * 1024 * 1024;
/** Largest Markdown artefact kept (longer ones are cut, and say so). */
export const MAX_MARKDOWN_CHARS = 2_000_000;

/** A resolved document: its record, where it is on disk, and whether the artefact was reused. */
export interface ResolvedDocument {
  record: DocumentRecord;
  absolute: string;
  mtimeMs: number;
  cached: boolean;
  stored: boolean;
}

/** The workspace path a call names: `path`, or the file of `node_id`. */
export function documentPath(graph: GraphService, args: { path?: string; node_id?: string }): string {
  const byPath = args.path ? graph.run(() => graph.engine.resolvePath(args.path!)).relative : null;
  const byNode = args.node_id ? graph.node(args.node_id).path : null;
  if (byPath !== null && byNode !== null && byPath !== byNode) {
    throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `path ${byPath} and node_id ${args.node_id} (in ${byNode}) name different documents`, {
      hint: `pass one of them: {"path":"${byPath}"} or {"node_id":"${args.node_id}"}`,
    });
  }
  if (byPath !== null) return byPath;
  if (byNode !== null) return byNode;
  throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'name the document with path or node_id', {
    hint: 'pass {"path":"docs/guide.pdf"} (a workspace path) or {"node_id":"file:docs/guide.md"}',
  });
}

/**
 * Reads and converts (or reuses) the canonical Markdown of a workspace document. The artefact is
 * kept in memory; `persist` (write calls only) also stores it.
 */
export async function resolveDocument(graph: GraphService, path: string, options: { signal?: AbortSignal; persist?: boolean } = {}): Promise<ResolvedDocument> {
  const absolute = graph.run(() => graph.engine.resolvePath(path)).absolute;
  let info;
  try {
    info = await stat(absolute);
  } catch {
    info = null;
  }
  if (info?.isDirectory()) throw folderError(path, absolute);
  const converter = converterFor(path);
  if (!converter) {
    throw new M1ndError(ErrorCodes.DOCUMENT_UNSUPPORTED, `no converter reads ${path}`, {
      hint: `documents are ${CONVERTERS.flatMap((c) => c.extensions).join(' ')}; document_provider_health lists the converters`,
    });
  }
  if (!info?.isFile()) throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `${path} is not a file`, { hint: 'pass the workspace path of an existing document' });
  if (info.size > MAX_SOURCE_BYTES) {
    throw new M1ndError(ErrorCodes.CALL_INPUT_TOO_LARGE, `${path} is ${info.size} bytes; documents up to ${MAX_SOURCE_BYTES} are converted`, { hint: 'split the document or convert it to Markdown yourself' });
  }
  const bytes = await readFile(absolute);
  const sourceHash = createHash('sha1').update(bytes).digest('hex');
  const previous = loadRecord(graph, path);
  const revision = converter.revision ?? 1;
  if (previous && previous.source_hash === sourceHash && previous.converter === converter.name && (previous.revision ?? 1) === revision) {
    keepRecord(graph, previous);
    return { record: previous, absolute, mtimeMs: info.mtimeMs, cached: true, stored: options.persist ? saveIfNeeded(graph, previous) : isStored(graph, previous) };
  }
  let markdown: string;
  try {
    markdown = await converter.convert(bytes, options.signal);
  } catch (error) {
    if (error instanceof M1ndError) throw error;
    throw new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${converter.name} could not read ${path}: ${(error as Error).message}`, {
      hint: 'check the file opens in its own application; a damaged or encrypted file cannot be converted',
    });
  }
  if (markdown.length > MAX_MARKDOWN_CHARS) markdown = `${markdown.slice(0, MAX_MARKDOWN_CHARS)}\n\n[… cut at ${MAX_MARKDOWN_CHARS} characters]`;
  const record: DocumentRecord = { path, source_hash: sourceHash, producer: producerOf(converter), converter: converter.name, ...(revision > 1 ? { revision } : {}), converted_at: Date.now(), markdown };
  // The same bytes converted again by a newer revision: the document did not change, so its baseline stands.
  if (previous?.source_hash === sourceHash && previous.baseline) record.baseline = previous.baseline;
  let stored = false;
  if (options.persist) stored = saveRecord(graph, record);
  else keepRecord(graph, record);
  return { record, absolute, mtimeMs: info.mtimeMs, cached: false, stored };
}

/** Documents named in a folder's refusal hint at most, and folder entries looked at to find them. */
const HINT_DOCUMENTS = 3;
const HINT_ENTRIES = 500;

/** The refusal of a folder passed as a document: naming a few documents directly in it, and the verbs that take a folder. */
function folderError(path: string, absolute: string): M1ndError {
  const shown = path === '' ? '.' : path;
  const found: string[] = [];
  try {
    const dir = opendirSync(absolute);
    try {
      for (let i = 0, e = dir.readSync(); e && i < HINT_ENTRIES && found.length < HINT_DOCUMENTS; i++, e = dir.readSync()) {
        if (e.isFile() && converterFor(e.name)) found.push(path === '' ? e.name : `${path}/${e.name}`);
      }
    } finally {
      dir.closeSync();
    }
  } catch {
    // unreadable folder: the hint names no document
  }
  found.sort();
  const inside = found.length ? `pass a document in it (${found.map((f) => `"${f}"`).join(', ')})` : `pass the path of a document under it (${DOCUMENT_EXTENSIONS.join(' ')})`;
  return new M1ndError(ErrorCodes.PATH_NOT_FOUND, `${shown} is a folder, not a document`, {
    hint: `${inside}; for every document under it, document_drift {"scope":"${shown}"} checks those bound before and auto_ingest_start {"roots":["${shown}"]} converts them as they change`,
  });
}

function saveIfNeeded(graph: GraphService, record: DocumentRecord): boolean {
  return isStored(graph, record) || saveRecord(graph, record);
}
