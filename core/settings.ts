/**
 * Host settings: what the gates, tiers, shaping and envelope read. Built from defaults, then the
 * config file (issue: configuration), then environment variables, then CLI flags — later wins.
 */
import path from 'node:path';

/** The smallest result token limit (env or config): a cut result's envelope alone is ~80 tokens. */
export const MIN_RESULT_TOKEN_LIMIT = 100;

export interface HostSettings {
  /** The tier asked for (env, config or flag), as given; undefined when nobody asked. */
  requestedTier?: string;
  readOnly: boolean;
  proofGate: boolean;
  /** The host-wide cap on one result, in BPE tokens. */
  resultTokenLimit: number;
  /** Whether the `_m1nd` envelope is added to object results. */
  envelope: boolean;
  handlerTimeoutMs: number;
  /** Largest accepted tools/call arguments, in JSON bytes (M1ND_MAX_ARGUMENT_BYTES). */
  maxArgumentBytes: number;
  /** The workspace every file verb is confined to. */
  workspaceRoot: string;
  /** Where the embedded store lives (default `<workspaceRoot>/.m1nd`). */
  storeDir: string;
  /** The team store (`postgres://…`, M1ND_STORE_URL or config storage.url); unset: the embedded store holds team state too. */
  storeUrl?: string;
  /** TLS options passed to the team store's client as given (config storage.tls). */
  storeTls?: Record<string, unknown>;
  /** Overrides the repository identity that keys team state (M1ND_REPOSITORY_ID or config storage.repository). */
  repositoryId?: string;
  /** Absolute directories outside the workspace that multi-root verbs (federate) may read (M1ND_ALLOW_ROOTS, config `allowRoots`). */
  allowRoots: string[];
}

/** Defaults for a workspace root. */
export function defaultSettings(workspaceRoot: string): HostSettings {
  const root = path.resolve(workspaceRoot);
  return {
    readOnly: false,
    proofGate: false,
    resultTokenLimit: 20000,
    envelope: true,
    handlerTimeoutMs: 120_000,
    maxArgumentBytes: 1024 * 1024,
    workspaceRoot: root,
    storeDir: path.join(root, '.m1nd'),
    allowRoots: [],
  };
}

/** A boolean env flag: unset, empty, `0` and `false` are off; anything else is on. */
export function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  return !(v === '' || v === '0' || v === 'false');
}

function envInt(value: string | undefined, name: string, min = 1): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer of at least ${min}, got ${JSON.stringify(value)}`);
  return n;
}

/** Applies M1ND_* environment variables over settings. */
export function applyEnv(base: HostSettings, env: Record<string, string | undefined>): HostSettings {
  const s = { ...base };
  if (env.M1ND_WORKSPACE) {
    s.workspaceRoot = path.resolve(env.M1ND_WORKSPACE);
    s.storeDir = path.join(s.workspaceRoot, '.m1nd');
  }
  if (env.M1ND_STORE_DIR) s.storeDir = path.resolve(s.workspaceRoot, env.M1ND_STORE_DIR);
  if (env.M1ND_STORE_URL !== undefined && env.M1ND_STORE_URL.trim() !== '') s.storeUrl = env.M1ND_STORE_URL.trim();
  if (env.M1ND_REPOSITORY_ID !== undefined && env.M1ND_REPOSITORY_ID.trim() !== '') s.repositoryId = env.M1ND_REPOSITORY_ID.trim();
  if (env.M1ND_TOOL_TIER !== undefined && env.M1ND_TOOL_TIER.trim() !== '') s.requestedTier = env.M1ND_TOOL_TIER.trim();
  s.readOnly = envFlag(env.M1ND_READ_ONLY) ?? s.readOnly;
  s.proofGate = envFlag(env.M1ND_PROOF_GATE) ?? s.proofGate;
  s.envelope = envFlag(env.M1ND_RESPONSE_ENVELOPE) ?? s.envelope;
  s.resultTokenLimit = envInt(env.M1ND_RESULT_TOKEN_LIMIT, 'M1ND_RESULT_TOKEN_LIMIT', MIN_RESULT_TOKEN_LIMIT) ?? s.resultTokenLimit;
  s.handlerTimeoutMs = envInt(env.M1ND_HANDLER_TIMEOUT_MS, 'M1ND_HANDLER_TIMEOUT_MS') ?? s.handlerTimeoutMs;
  s.maxArgumentBytes = envInt(env.M1ND_MAX_ARGUMENT_BYTES, 'M1ND_MAX_ARGUMENT_BYTES') ?? s.maxArgumentBytes;
  // A path-delimited list (":" on POSIX, ";" on Windows), added to the config's roots.
  if (env.M1ND_ALLOW_ROOTS) s.allowRoots = [...s.allowRoots, ...env.M1ND_ALLOW_ROOTS.split(path.delimiter).filter((d) => d.trim() !== '').map((d) => path.resolve(s.workspaceRoot, d.trim()))];
  return s;
}
