/**
 * The one error catalog. Codes read `M1ND_ERR_<AREA>_<WHAT>`; every message tells the caller the
 * next valid move. Plugins throw these (or plain Errors, which the host wraps and stamps).
 */

export const ErrorCodes = {
  // plugin loading (each names the plugin and the failed check)
  PLUGIN_NAME: 'M1ND_ERR_PLUGIN_NAME',
  PLUGIN_VERSION: 'M1ND_ERR_PLUGIN_VERSION',
  PLUGIN_DEPENDENCY: 'M1ND_ERR_PLUGIN_DEPENDENCY',
  PLUGIN_APPLY: 'M1ND_ERR_PLUGIN_APPLY',
  PLUGIN_IMPORT: 'M1ND_ERR_PLUGIN_IMPORT',
  PLUGIN_OPTIONS: 'M1ND_ERR_PLUGIN_OPTIONS',
  PLUGIN_SERVICE: 'M1ND_ERR_PLUGIN_SERVICE',
  PLUGIN_RESOURCE: 'M1ND_ERR_PLUGIN_RESOURCE',
  PLUGIN_ROUTE: 'M1ND_ERR_PLUGIN_ROUTE',
  // verb registration
  VERB_DUPLICATE: 'M1ND_ERR_VERB_DUPLICATE',
  VERB_SCHEMA: 'M1ND_ERR_VERB_SCHEMA',
  VERB_NAME: 'M1ND_ERR_VERB_NAME',
  VERB_LOAD: 'M1ND_ERR_VERB_LOAD',
  // dispatch
  CALL_UNKNOWN_VERB: 'M1ND_ERR_CALL_UNKNOWN_VERB',
  CALL_VERB_QUARANTINED: 'M1ND_ERR_CALL_VERB_QUARANTINED',
  CALL_INVALID_ARGS: 'M1ND_ERR_CALL_INVALID_ARGS',
  CALL_TIMEOUT: 'M1ND_ERR_CALL_TIMEOUT',
  CALL_CANCELLED: 'M1ND_ERR_CALL_CANCELLED',
  CALL_HANDLER: 'M1ND_ERR_CALL_HANDLER',
  CALL_INPUT_TOO_LARGE: 'M1ND_ERR_CALL_INPUT_TOO_LARGE',
  CALL_RESULT_TOO_LARGE: 'M1ND_ERR_CALL_RESULT_TOO_LARGE',
  // gates
  GATE_READ_ONLY: 'M1ND_ERR_GATE_READ_ONLY',
  GATE_PROOF_UNPROVEN: 'M1ND_ERR_GATE_PROOF_UNPROVEN',
  GATE_PROOF_UNRESOLVED: 'M1ND_ERR_GATE_PROOF_UNRESOLVED',
  // configuration and tiers
  CONFIG_INVALID: 'M1ND_ERR_CONFIG_INVALID',
  CONFIG_LOAD: 'M1ND_ERR_CONFIG_LOAD',
  TIER_UNKNOWN: 'M1ND_ERR_TIER_UNKNOWN',
  // workspace and files
  PATH_ESCAPE: 'M1ND_ERR_PATH_ESCAPE',
  PATH_NOT_FOUND: 'M1ND_ERR_PATH_NOT_FOUND',
  // graph-backed verbs
  GRAPH_EMPTY: 'M1ND_ERR_GRAPH_EMPTY',
  GRAPH_NODE_NOT_FOUND: 'M1ND_ERR_GRAPH_NODE_NOT_FOUND',
  GRAPH_UNSUPPORTED_PARAM: 'M1ND_ERR_GRAPH_UNSUPPORTED_PARAM',
  // the graph engine (plugins/graph/engine/errors.ts raises these same codes)
  ENGINE_INGEST_ABORTED: 'M1ND_ERR_ENGINE_INGEST_ABORTED',
  ENGINE_INGEST_BUSY: 'M1ND_ERR_ENGINE_INGEST_BUSY',
  ENGINE_CHECKPOINT_NOT_FOUND: 'M1ND_ERR_ENGINE_CHECKPOINT_NOT_FOUND',
  ENGINE_CHECKPOINT_NAME: 'M1ND_ERR_ENGINE_CHECKPOINT_NAME',
  ENGINE_SEARCH_PATTERN: 'M1ND_ERR_ENGINE_SEARCH_PATTERN',
  ENGINE_STORE_CLOSED: 'M1ND_ERR_ENGINE_STORE_CLOSED',
  // state owned by an agent (perspectives, locks, trails)
  STATE_NOT_FOUND: 'M1ND_ERR_STATE_NOT_FOUND',
  STATE_NOT_OWNER: 'M1ND_ERR_STATE_NOT_OWNER',
  STATE_STALE: 'M1ND_ERR_STATE_STALE',
  STATE_LIMIT: 'M1ND_ERR_STATE_LIMIT',
  STATE_CONFLICT: 'M1ND_ERR_STATE_CONFLICT',
  STORE_UNAVAILABLE: 'M1ND_ERR_STORE_UNAVAILABLE',
  STORE_SCHEMA_NEWER: 'M1ND_ERR_STORE_SCHEMA_NEWER',
  // writes through the edit family
  EDIT_STALE_BASE: 'M1ND_ERR_EDIT_STALE_BASE',
  EDIT_HUNK_MISMATCH: 'M1ND_ERR_EDIT_HUNK_MISMATCH',
  EDIT_CONFIRM_REQUIRED: 'M1ND_ERR_EDIT_CONFIRM_REQUIRED',
  EDIT_WRITE_FAILED: 'M1ND_ERR_EDIT_WRITE_FAILED',
  // shared memory (claims, missions)
  MEMORY_CLAIM_TOO_LARGE: 'M1ND_ERR_MEMORY_CLAIM_TOO_LARGE',
  MEMORY_QUOTA: 'M1ND_ERR_MEMORY_QUOTA',
  MEMORY_UNVERIFIED: 'M1ND_ERR_MEMORY_UNVERIFIED',
  MISSION_BUDGET: 'M1ND_ERR_MISSION_BUDGET',
  MISSION_CLOSED: 'M1ND_ERR_MISSION_CLOSED',
  // universal documents (plugins/documents)
  DOCUMENT_UNSUPPORTED: 'M1ND_ERR_DOCUMENT_UNSUPPORTED',
  DOCUMENT_PROVIDER_MISSING: 'M1ND_ERR_DOCUMENT_PROVIDER_MISSING',
  DOCUMENT_CONVERT_FAILED: 'M1ND_ERR_DOCUMENT_CONVERT_FAILED',
  // transports
  HTTP_FORBIDDEN: 'M1ND_ERR_HTTP_FORBIDDEN',
  HTTP_UNAUTHORIZED: 'M1ND_ERR_HTTP_UNAUTHORIZED',
  HTTP_BODY_TOO_LARGE: 'M1ND_ERR_HTTP_BODY_TOO_LARGE',
  HTTP_NOT_FOUND: 'M1ND_ERR_HTTP_NOT_FOUND',
  HTTP_BAD_REQUEST: 'M1ND_ERR_HTTP_BAD_REQUEST',
  // identity bound to the session (core/identity.ts)
  AUTH_AGENT_MISMATCH: 'M1ND_ERR_AUTH_AGENT_MISMATCH',
  AUTH_AGENT_DENIED: 'M1ND_ERR_AUTH_AGENT_DENIED',
  AUTH_ROLE: 'M1ND_ERR_AUTH_ROLE',
  // git history (the history family)
  HISTORY_NO_GIT: 'M1ND_ERR_HISTORY_NO_GIT',
  HISTORY_BAD_REF: 'M1ND_ERR_HISTORY_BAD_REF',
  HISTORY_TOO_SHORT: 'M1ND_ERR_HISTORY_TOO_SHORT',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export interface M1ndErrorOptions {
  /** The next valid move, shown to the agent after the message. */
  hint?: string;
  /** The plugin the error escaped from (stamped by the host). */
  plugin?: string;
  /** Structured detail for the result payload. */
  data?: Record<string, unknown>;
  cause?: unknown;
}

/** An error with a catalog code and a corrective hint; the host turns it into an isError result. */
export class M1ndError extends Error {
  readonly code: ErrorCode;
  hint?: string;
  plugin?: string;
  data?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: M1ndErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'M1ndError';
    this.code = code;
    this.hint = options.hint;
    this.plugin = options.plugin;
    this.data = options.data;
  }
}

/** Wraps any thrown value as an M1ndError, stamping the plugin it escaped from. */
export function toM1ndError(error: unknown, plugin?: string): M1ndError {
  if (error instanceof M1ndError) {
    if (plugin && !error.plugin) error.plugin = plugin;
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new M1ndError(ErrorCodes.CALL_HANDLER, message || 'handler failed without a message', {
    plugin,
    cause: error,
    hint: 'call `help` with {"mode":"recovery","error_text":"<this message>"} for the next step',
  });
}
