/**
 * `m1nd.config.ts`: plugin sources, bundles, tiers, gates, per-plugin options, storage. Loaded at
 * run time without a build step (through tsx, in a fresh module namespace each load, so reload sees
 * edits), validated with TypeBox. Precedence: defaults < config file < environment < CLI flags.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { importConfigFile } from './config-import.ts';
import { ErrorCodes, M1ndError } from './errors.ts';
import { MIN_RESULT_TOKEN_LIMIT } from './settings.ts';
import type { TierCuration } from './tiers.ts';

const Curation = Type.Object(
  {
    extends: Type.Optional(Type.String()),
    add: Type.Optional(Type.Array(Type.String())),
    remove: Type.Optional(Type.Array(Type.String())),
    description: Type.Optional(Type.String()),
    outputSchemas: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** The schema of a configuration file's default export. */
export const ConfigSchema = Type.Object(
  {
    workspace: Type.Optional(Type.String({ description: 'Workspace root (default: the current directory)' })),
    plugins: Type.Optional(
      Type.Object(
        {
          dirs: Type.Optional(Type.Array(Type.String(), { description: 'Folders holding one plugin per sub-folder (index.ts)' })),
          packages: Type.Optional(Type.Array(Type.String(), { description: 'npm packages default-exporting a plugin' })),
          disable: Type.Optional(Type.Array(Type.String(), { description: 'Plugin names not to load' })),
        },
        { additionalProperties: false },
      ),
    ),
    bundles: Type.Optional(Type.Array(Type.String(), { description: 'Bundles to enable, by name (bundles/<name>), folder path or npm package' })),
    bundleDirs: Type.Optional(Type.Array(Type.String())),
    tier: Type.Optional(Type.String({ description: 'Tier advertised when M1ND_TOOL_TIER is unset' })),
    tiers: Type.Optional(Type.Record(Type.String(), Curation)),
    gates: Type.Optional(
      Type.Object(
        {
          readOnly: Type.Optional(Type.Boolean()),
          proofGate: Type.Optional(Type.Boolean()),
          resultTokenLimit: Type.Optional(Type.Integer({ minimum: MIN_RESULT_TOKEN_LIMIT })),
          handlerTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
          envelope: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    options: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
    storage: Type.Optional(
      Type.Object(
        {
          dir: Type.Optional(Type.String()),
          /** The team store: `postgres://user@host/db` (credentials better in M1ND_STORE_URL). */
          url: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
          /** TLS options for the team store's client (node-postgres `ssl`), passed through. */
          tls: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
          /** The repository identity keying team state (default: git root commit + normalised remote). */
          repository: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Directories outside the workspace that federate may read (relative to the config file); M1ND_ALLOW_ROOTS adds more. */
    allowRoots: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    http: Type.Optional(
      Type.Object(
        {
          port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
          host: Type.Optional(Type.String()),
          allowedHosts: Type.Optional(Type.Array(Type.String())),
          allowedOrigins: Type.Optional(Type.Array(Type.String())),
          maxBodyBytes: Type.Optional(Type.Integer({ minimum: 1024 })),
          /** One MCP session may act as several agent ids (loopback only). */
          allowAgentSwitch: Type.Optional(Type.Boolean()),
          /** An OAuth authorization server whose JWT access tokens are accepted (docs/security.md). */
          auth: Type.Optional(
            Type.Object(
              {
                issuer: Type.String({ minLength: 1 }),
                audience: Type.Optional(Type.String()),
                agentClaim: Type.Optional(Type.String()),
                jwksUri: Type.Optional(Type.String()),
                resource: Type.Optional(Type.String()),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type M1ndConfig = Static<typeof ConfigSchema> & { tiers?: Record<string, TierCuration> };

/** Identity helper that types a configuration (default-export it from m1nd.config.ts). */
export function defineConfig(config: M1ndConfig): M1ndConfig {
  return config;
}

/** The schema of a bundle's default export. */
export const BundleSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    plugins: Type.Optional(
      Type.Object(
        { dirs: Type.Optional(Type.Array(Type.String())), packages: Type.Optional(Type.Array(Type.String())) },
        { additionalProperties: false },
      ),
    ),
    tier: Type.Optional(Type.String()),
    tiers: Type.Optional(Type.Record(Type.String(), Curation)),
  },
  { additionalProperties: false },
);

export type BundleDefinition = Static<typeof BundleSchema> & { tiers?: Record<string, TierCuration> };

/** Identity helper that types a bundle: a shippable set of plugins plus tier curation. */
export function defineBundle(bundle: BundleDefinition): BundleDefinition {
  return bundle;
}

const CONFIG_NAMES = ['m1nd.config.ts', 'm1nd.config.mts', 'm1nd.config.js', 'm1nd.config.mjs'];

/** The config file of a directory, if it has one. */
export function findConfigFile(dir: string): string | undefined {
  for (const name of CONFIG_NAMES) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

/** Checks a value against a schema; throws CONFIG_INVALID naming the key, the expected shape and the file. */
export function validateShape<T>(schema: Parameters<typeof Value.Check>[0], value: unknown, file: string, what: string): T {
  if (Value.Check(schema, value)) return value as T;
  const first = Value.Errors(schema, value).First()!;
  const key = first.path.replace(/^\//, '').replace(/\//g, '.') || '(root)';
  const expected = first.schema.type ? `${first.schema.type}` : first.message;
  const unknownKey = /additional|unexpected property/i.test(first.message);
  throw new M1ndError(
    ErrorCodes.CONFIG_INVALID,
    unknownKey
      ? `${file}: unknown ${what} key "${key}"`
      : `${file}: ${what} key "${key}" expected ${expected}, got ${JSON.stringify(first.value)} (${first.message})`,
    { hint: `fix "${key}" in ${file}; see docs/configuration.md`, data: { file, key, expected, message: first.message } },
  );
}

/**
 * Imports and validates a config file. The default `importer` bundles it with esbuild (core/config-import.ts),
 * so `.ts`/`.mts`/`.js`/`.mjs` configs load in CommonJS and ES module projects alike; an error names its cause.
 */
export async function loadConfigFile(file: string, importer: (file: string) => Promise<Record<string, unknown>> = importConfigFile): Promise<M1ndConfig> {
  let mod: Record<string, unknown>;
  try {
    mod = await importer(file);
  } catch (error) {
    if (error instanceof M1ndError) throw error;
    throw new M1ndError(ErrorCodes.CONFIG_LOAD, `${file}: could not be loaded: ${(error as Error).message}`, { hint: 'fix the error named above, or pass --config with another file' });
  }
  let value = mod.default ?? mod.config;
  // A CommonJS config (`module.exports = { default: ... }` as compiled TypeScript writes it).
  if (value && typeof value === 'object' && '__esModule' in value && 'default' in value) value = (value as { default: unknown }).default;
  if (value === undefined) {
    const names = Object.keys(mod).filter((k) => k !== 'default');
    throw new M1ndError(ErrorCodes.CONFIG_INVALID, `${file}: no default export${names.length ? ` (it exports ${names.map((n) => `"${n}"`).join(', ')})` : ''}`, {
      hint: 'end the file with `export default defineConfig({ ... })` (or `module.exports = { ... }` in CommonJS)',
      data: { file, cause: 'no-default-export', exports: names },
    });
  }
  if (typeof value === 'function') {
    throw new M1ndError(ErrorCodes.CONFIG_INVALID, `${file}: the default export is a function; m1nd reads a plain object`, {
      hint: 'export default defineConfig({ ... }) — an object, not a function returning one',
      data: { file, cause: 'not-an-object' },
    });
  }
  return validateShape<M1ndConfig>(ConfigSchema, value, file, 'config');
}
