/**
 * The layer manifest xray checks the code against, kept by the team in the repository
 * (`m1nd.layers.json` at the workspace root, or `options.structure.layers` in m1nd.config.ts) or
 * given in the call: named layers as path globs, their order top → bottom (a layer may depend on
 * the layers below it, never above), forbidden directions, and paths that must exist.
 *
 *   { "layers": [{ "name": "app", "paths": ["src/app/**"] }, …],
 *     "layer_order": ["app", "service", "db"],
 *     "forbid": ["service -> app"], "require_exists": ["src/db/**"], "allow_skip": true }
 *
 * A `layer_order` entry that names no layer is itself a path (prefix or glob) and a layer of that name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { ErrorCodes, M1ndError, Type, type Static } from '../../../core/index.ts';
import type { CodeGraphEngine } from '../../graph/api.ts';
import { engineCall } from '../../graph/api.ts';

export const MANIFEST_FILE = 'm1nd.layers.json';

const Glob = Type.String({ maxLength: 512 });

/** Schema of a manifest (the `manifest` argument, the JSON file and the config option). */
export const ManifestSchema = Type.Object(
  {
    layers: Type.Optional(Type.Array(Type.Object({ name: Type.String({ maxLength: 80 }), paths: Type.Array(Glob, { maxItems: 32 }) }), { maxItems: 32, description: 'Named layers as path globs' })),
    layer_order: Type.Optional(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 32, description: 'Layers top → bottom (names, or paths)' })),
    forbid: Type.Optional(Type.Array(Type.String({ maxLength: 600 }), { maxItems: 64, description: '"from -> to" (layer names or globs) never allowed' })),
    require_exists: Type.Optional(Type.Array(Glob, { maxItems: 64, description: 'Globs that must match some file' })),
    allow_skip: Type.Optional(Type.Boolean({ description: 'A dependency may skip layers below (default true; false = caution)' })),
  },
  { description: 'Layer manifest (else m1nd.layers.json, else config)' },
);
export type ManifestInput = Static<typeof ManifestSchema>;

/** A checked manifest. */
export interface Manifest {
  /** Where it came from: `call`, a workspace path, or `config`. */
  source: string;
  /** Identity of its content (for caches). */
  key: string;
  layers: { name: string; globs: string[]; match: (path: string) => boolean }[];
  forbid: { text: string; from: (path: string) => boolean; to: (path: string) => boolean }[];
  requireExists: string[];
  allowSkip: boolean;
}

const HINT = `add ${MANIFEST_FILE} at the workspace root ({"layers":[{"name":"app","paths":["src/app/**"]},{"name":"db","paths":["src/db/**"]}],"layer_order":["app","db"]}), or pass manifest / manifest_path`;

/** A glob, or a plain path taken as "that path and everything under it". */
function matcher(globs: readonly string[]): (path: string) => boolean {
  const patterns = globs.flatMap((g) => {
    const clean = g.replace(/^\.\//, '').replace(/\/+$/, '');
    return picomatch.scan(clean).isGlob ? [clean] : [clean, `${clean}/**`];
  });
  return picomatch(patterns, { dot: true });
}

function invalid(message: string, source: string): M1ndError {
  return new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `layer manifest (${source}): ${message}`, { hint: HINT });
}

/** Checks and compiles a manifest. */
export function compileManifest(input: ManifestInput, source: string): Manifest {
  const named = new Map<string, string[]>();
  for (const l of input.layers ?? []) {
    if (named.has(l.name)) throw invalid(`layer "${l.name}" is defined twice`, source);
    if (l.paths.length === 0) throw invalid(`layer "${l.name}" has no paths`, source);
    named.set(l.name, l.paths);
  }
  const order = input.layer_order?.length ? input.layer_order : [...named.keys()];
  if (order.length === 0) throw invalid('no layers: give `layers` and/or `layer_order`', source);
  if (new Set(order).size !== order.length) throw invalid('layer_order names a layer twice', source);
  for (const name of named.keys()) if (!order.includes(name)) throw invalid(`layer "${name}" is missing from layer_order`, source);
  const layers = order.map((name) => {
    const globs = named.get(name) ?? [name];
    return { name, globs, match: matcher(globs) };
  });
  const side = (text: string) => {
    const layer = layers.find((l) => l.name === text);
    return layer ? layer.match : matcher([text]);
  };
  const forbid = (input.forbid ?? []).map((text) => {
    const parts = text.split(/\s*->\s*/);
    if (parts.length !== 2 || !parts[0] || !parts[1]) throw invalid(`forbid entry "${text}" is not "from -> to"`, source);
    return { text, from: side(parts[0].trim()), to: side(parts[1].trim()) };
  });
  return { source, key: JSON.stringify(input), layers, forbid, requireExists: input.require_exists ?? [], allowSkip: input.allow_skip ?? true };
}

/** The manifest of a call: the argument, else `manifest_path`, else m1nd.layers.json, else the config option. */
export function loadManifest(engine: CodeGraphEngine, args: { manifest?: ManifestInput; manifest_path?: string }, configured: ManifestInput | undefined): Manifest {
  if (args.manifest) return compileManifest(args.manifest, 'call');
  let path: string | null = null;
  let absolute: string | null = null;
  if (args.manifest_path) {
    const p = engineCall(() => engine.resolvePath(args.manifest_path!));
    path = p.relative;
    absolute = p.absolute;
    if (!existsSync(absolute)) throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `no manifest file "${path}"`, { hint: HINT });
  } else if (existsSync(join(engine.root, MANIFEST_FILE))) {
    path = MANIFEST_FILE;
    absolute = join(engine.root, MANIFEST_FILE);
  }
  if (path && absolute) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(absolute, 'utf8'));
    } catch (error) {
      throw invalid(`not valid JSON: ${(error as Error).message}`, path);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('not a JSON object', path);
    const m = parsed as Record<string, unknown>;
    const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (m.layers !== undefined && !(Array.isArray(m.layers) && m.layers.every((l) => l && typeof l.name === 'string' && strings(l.paths)))) throw invalid('`layers` must be [{name, paths: [globs]}]', path);
    for (const k of ['layer_order', 'forbid', 'require_exists'] as const) if (m[k] !== undefined && !strings(m[k])) throw invalid(`\`${k}\` must be a list of strings`, path);
    return compileManifest(m as ManifestInput, path);
  }
  if (configured) return compileManifest(configured, 'config');
  throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, 'no layer manifest: xray checks the code against the layers the team declares', { hint: HINT });
}

/** Index of the layer holding `path` (first match in layer order), or -1. */
export function layerOf(m: Manifest, path: string): number {
  for (let i = 0; i < m.layers.length; i++) if (m.layers[i].match(path)) return i;
  return -1;
}

/** A dependency's standing under the manifest. */
export interface Verdict {
  kind: 'allowed' | 'upward' | 'forbidden' | 'skip' | 'unmapped';
  why: string;
}

/** Judges a dependency from file `from` to file `to`. */
export function judge(m: Manifest, from: string, to: string): Verdict {
  const f = m.forbid.find((x) => x.from(from) && x.to(to));
  if (f) return { kind: 'forbidden', why: `the manifest forbids ${f.text}` };
  const a = layerOf(m, from);
  const b = layerOf(m, to);
  if (a < 0 || b < 0) return { kind: 'unmapped', why: `${a < 0 ? from : to} is in no layer of the manifest` };
  const la = m.layers[a].name;
  const lb = m.layers[b].name;
  if (b < a) return { kind: 'upward', why: `${la} (layer ${a + 1}) depends on ${lb} (layer ${b + 1}) above it` };
  if (b > a + 1 && !m.allowSkip) return { kind: 'skip', why: `${la} skips ${b - a - 1} layer(s) to reach ${lb}` };
  return { kind: 'allowed', why: a === b ? `within ${la}` : `${la} → ${lb} goes down` };
}
