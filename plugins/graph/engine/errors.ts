/**
 * Errors the engine throws. Codes follow the host catalog's `M1ND_ERR_<AREA>_<WHAT>` form (the
 * shared ones reuse the catalog's codes) so a verb can pass them through; the engine itself does not
 * depend on the host. Every message names the next valid move.
 */

/** Engine error codes. */
export const EngineErrorCodes = {
  PATH_ESCAPE: 'M1ND_ERR_PATH_ESCAPE',
  PATH_NOT_FOUND: 'M1ND_ERR_PATH_NOT_FOUND',
  GRAPH_NODE_NOT_FOUND: 'M1ND_ERR_GRAPH_NODE_NOT_FOUND',
  INGEST_ABORTED: 'M1ND_ERR_ENGINE_INGEST_ABORTED',
  INGEST_BUSY: 'M1ND_ERR_ENGINE_INGEST_BUSY',
  CHECKPOINT_NOT_FOUND: 'M1ND_ERR_ENGINE_CHECKPOINT_NOT_FOUND',
  CHECKPOINT_NAME: 'M1ND_ERR_ENGINE_CHECKPOINT_NAME',
  SEARCH_PATTERN: 'M1ND_ERR_ENGINE_SEARCH_PATTERN',
  STORE_CLOSED: 'M1ND_ERR_ENGINE_STORE_CLOSED',
} as const;

/** One of the engine's error codes. */
export type EngineErrorCode = (typeof EngineErrorCodes)[keyof typeof EngineErrorCodes];

/** An engine failure with a code and a hint telling the caller what to do instead. */
export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly hint?: string;

  constructor(code: EngineErrorCode, message: string, hint?: string) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    this.hint = hint;
  }
}
