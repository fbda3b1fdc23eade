/**
 * The documents plugin's public entry: its converters (which formats become canonical Markdown) and
 * the conversion itself, and the converted documents' graph nodes, for plugins that ingest documents
 * in the background (the daemon's auto-ingest).
 */
export { CONVERTERS, DOCUMENT_EXTENSIONS, converterFor } from './converters.ts';
export type { Converter } from './converters.ts';
export { NAMESPACE as DOCUMENTS_NAMESPACE } from './document-book.ts';
export { forgetRecord as forgetDocument } from './document-book.ts';
export type { DocumentRecord } from './document-book.ts';
export { documentNodes, MAX_GRAPH_DOCUMENTS } from './graph-nodes.ts';
export { resolveDocument } from './resolve-document.ts';
export type { ResolvedDocument } from './resolve-document.ts';
