/**
 * The `m1nd` command line: serve (stdio or Streamable HTTP), dev (serve with hot reload), list,
 * call (a verb without an MCP host), new-plugin. Every command takes --help.
 */
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GuardedStdioTransport } from './stdio-transport.ts';
import { startHost, type BootOptions, type PreparedGeneration } from './boot.ts';
import { clientSink, createLogger, envLogLevel, fanOut, stderrSink, type Logger } from './log.ts';
import { CORE_VERSION } from './version.ts';
import { watchForReload } from './dev.ts';
import { scaffoldPlugin } from './scaffold.ts';
import { M1ndError } from './errors.ts';
import type { Host } from './host.ts';

const COMMON = `Common options:
  --config PATH      config file (default: m1nd.config.ts in the workspace, if any)
  --workspace DIR    workspace root (default: current directory, or M1ND_WORKSPACE)
  --tier T           advertised tier (overrides M1ND_TOOL_TIER and the config)
  --read-only        refuse every write/destructive verb
  -h, --help         help for the command`;

const HELP: Record<string, string> = {
  main: `m1nd ${CORE_VERSION} — MCP server: shared code-graph memory and context for coding agents

Usage: m1nd <command> [options]
  serve        serve MCP over stdio (default) or Streamable HTTP (--http)
  dev          serve with hot reload of plugins and config (stdio, or --http)
  list         the verb catalog per tier, with counts, effects and families
  call         call one verb without an MCP host: m1nd call VERB '{"agent_id":"me"}'
  new-plugin   scaffold a plugin folder: m1nd new-plugin NAME [--dir plugins]

${COMMON}

Environment: M1ND_TOOL_TIER, M1ND_READ_ONLY, M1ND_PROOF_GATE, M1ND_RESULT_TOKEN_LIMIT,
M1ND_RESPONSE_ENVELOPE, M1ND_HANDLER_TIMEOUT_MS, M1ND_WORKSPACE, M1ND_STORE_DIR, M1ND_STORE_URL
(postgres://… team store), M1ND_REPOSITORY_ID,
M1ND_HTTP_TOKEN, M1ND_HTTP_TOKENS (JSON or file), M1ND_HTTP_ALLOW_AGENT_SWITCH,
M1ND_HTTP_AUTH_ISSUER, M1ND_HTTP_AUTH_AUDIENCE, M1ND_HTTP_AUTH_AGENT_CLAIM, M1ND_HTTP_AUTH_JWKS_URI,
M1ND_HTTP_ALLOWED_HOSTS, M1ND_HTTP_ALLOWED_ORIGINS (comma-separated), M1ND_LOG_LEVEL (debug|info|warn|error).`,
  serve: `Usage: m1nd serve [--http [--port N] [--host ADDR]] [--watch] [options]
  --http        Streamable HTTP on 127.0.0.1 (default port 7463) instead of stdio
  --port N      HTTP port (0 = any free port)
  --host ADDR   bind address; a non-loopback address requires M1ND_HTTP_TOKEN(S) or an auth issuer
  --allow-agent-switch  one HTTP session may act as several agent ids (loopback only; weaker isolation)
  --watch       hot reload (same as m1nd dev)

${COMMON}`,
  dev: `Usage: m1nd dev [--http [--port N]] [options]
Serves like \`m1nd serve\` and watches plugin folders, bundles and the config file: each change
builds a new generation, swapped in only if it loads cleanly (clients get tools/list_changed).

${COMMON}`,
  list: `Usage: m1nd list [--tier T] [--json] [options]
Prints every registered verb: family, effect, tiers advertising it, and whether tier T (default:
the configured one) advertises it; then the counts per tier.

${COMMON}`,
  call: `Usage: m1nd call VERB ['{"json":"arguments"}'] [options]
Runs one verb through the full pipeline (gates, validation, shaping) and prints its result.
agent_id defaults to "cli". Exit code 1 when the verb answers an error.

${COMMON}`,
  'new-plugin': `Usage: m1nd new-plugin NAME [--dir DIR]
Writes DIR/NAME (default DIR: ./plugins) with index.ts, verbs/NAME_hello.ts and NAME.test.ts.
Add DIR to \`plugins.dirs\` in m1nd.config.ts if it is not the built-in plugins folder.`,
};

const OPTIONS: ParseArgsConfig['options'] = {
  config: { type: 'string' },
  workspace: { type: 'string' },
  tier: { type: 'string' },
  'read-only': { type: 'boolean' },
  http: { type: 'boolean' },
  'allow-agent-switch': { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  watch: { type: 'boolean' },
  json: { type: 'boolean' },
  dir: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
};

type Values = Record<string, string | boolean | undefined>;

function bootOptions(v: Values, log: Logger, reloads = false): BootOptions {
  const overrides: BootOptions['overrides'] = {};
  if (v['read-only']) overrides.readOnly = true;
  if (typeof v.tier === 'string') overrides.requestedTier = v.tier;
  // Only a watching server reloads: the others import plugins once, without module hooks.
  return { configPath: v.config as string | undefined, workspaceRoot: v.workspace as string | undefined, overrides, log, freshImports: reloads };
}

/** A one-line progress bar on stderr for long verbs (ingest). */
function progressBar(): (done: number, total?: number, message?: string) => Promise<void> {
  return async (done, total, message) => {
    const pct = total ? Math.min(1, done / total) : 0;
    const bar = '#'.repeat(Math.round(pct * 30)).padEnd(30, '-');
    process.stderr.write(`\r[${bar}] ${total ? `${Math.round(pct * 100)}%` : done} ${message ?? ''}`.slice(0, 120).padEnd(80));
    if (total && done >= total) process.stderr.write('\n');
  };
}

async function serve(v: Values, log: Logger, watch: boolean, onHost: (h: Host) => void): Promise<number> {
  const host = await startHost(bootOptions(v, log, watch));
  onHost(host);
  const closers: (() => Promise<void>)[] = [];
  if (watch) {
    const watcher = watchForReload(host, { log });
    await watcher.ready;
    closers.push(() => watcher.close());
    log.info(`watching ${host.lastInput?.watchPaths?.length ?? 0} paths for changes`);
  }
  if (v.http) {
    const { serveHttp } = await import('./http.ts');
    const cfg = (host.lastInput as PreparedGeneration | undefined)?.http ?? {};
    const port = v.port === undefined ? cfg.port : Number(v.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
      process.stderr.write(`m1nd serve: --port must be an integer from 0 to 65535, got ${JSON.stringify(v.port)}\n`);
      await host.close();
      return 2;
    }
    const list = (env: string | undefined, fromConfig: string[] | undefined) => [...(fromConfig ?? []), ...(env ? env.split(',').map((x) => x.trim()).filter(Boolean) : [])];
    const { httpAuthOptions } = await import('./http-auth.ts');
    const server = await serveHttp(host, {
      port,
      host: (v.host as string | undefined) ?? cfg.host,
      ...httpAuthOptions(process.env, cfg, v['allow-agent-switch'] === true),
      allowedHosts: list(process.env.M1ND_HTTP_ALLOWED_HOSTS, cfg.allowedHosts),
      allowedOrigins: list(process.env.M1ND_HTTP_ALLOWED_ORIGINS, cfg.allowedOrigins),
      maxBodyBytes: cfg.maxBodyBytes,
      log,
    });
    process.stderr.write(`m1nd ${CORE_VERSION} serving MCP at ${server.url} (generation ${host.current.id}, tier ${host.current.tierChoice().tier})\n`);
    closers.push(() => server.close());
  } else {
    const transport = new GuardedStdioTransport();
    await host.connect(transport);
    // stdin closed, a line over the limit, or a stdin error: say why on stderr and exit, never linger deaf.
    void transport.ended.then((end) => {
      process.stderr.write(`m1nd: ${end.reason}; exiting (code ${end.code})\n`);
      void stop(end.code);
    });
  }
  const stop = async (code = 0) => {
    for (const c of closers) await c().catch(() => undefined);
    await host.close().catch(() => undefined);
    process.exit(code);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  return -1;
}

async function list(v: Values, log: Logger): Promise<number> {
  const host = await startHost(bootOptions(v, log));
  const gen = host.current;
  const surface = gen.surface();
  const tiers = [...gen.tierTable().tiers.keys()];
  const rows = [...surface.help.values()].map((h) => ({ verb: h.name, family: h.family, effect: h.effect, tiers: h.advertisedIn, advertised: h.advertisedNow }));
  const counts = Object.fromEntries(tiers.map((t) => [t, gen.surfaceFor(t).counts.advertised]));
  if (v.json) {
    process.stdout.write(JSON.stringify({ tier: surface.tier, registered: rows.length, counts, verbs: rows, quarantined: gen.quarantined() }, null, 2) + '\n');
  } else {
    const w = Math.max(...rows.map((r) => r.verb.length), 4);
    process.stdout.write(`${'verb'.padEnd(w)}  ${'family'.padEnd(12)} ${'effect'.padEnd(20)} tiers\n`);
    for (const r of rows) process.stdout.write(`${r.advertised ? r.verb.padEnd(w) : `${r.verb}*`.padEnd(w)}  ${r.family.padEnd(12)} ${r.effect.padEnd(20)} ${r.tiers.join(',') || '(never advertised)'}\n`);
    process.stdout.write(`\n${rows.length} registered; tier "${surface.tier}" advertises ${surface.counts.advertised} (* = not advertised, still callable)\n`);
    process.stdout.write(`per tier: ${Object.entries(counts).map(([t, n]) => `${t} ${n}`).join(', ')}\n`);
    for (const q of gen.quarantined()) process.stdout.write(`quarantined: ${q.plugin} (${q.code} at ${q.check}): ${q.message}\n`);
  }
  await host.close();
  return 0;
}

async function call(v: Values, positionals: string[], log: Logger): Promise<number> {
  const [verb, json] = positionals;
  if (!verb) {
    process.stderr.write(`${HELP.call}\n`);
    return 2;
  }
  let args: Record<string, unknown> = {};
  if (json !== undefined) {
    try {
      args = JSON.parse(json);
    } catch (error) {
      process.stderr.write(`m1nd call: arguments are not JSON: ${(error as Error).message}\n`);
      return 2;
    }
  }
  args.agent_id ??= 'cli';
  const host: Host = await startHost(bootOptions(v, log));
  const result = await host.call(verb, args, { sendProgress: progressBar() });
  for (const c of result.content) {
    if (c.type !== 'text') continue;
    let text = c.text;
    try {
      text = JSON.stringify(JSON.parse(c.text), null, 2);
    } catch {
      // plain text results print as they are
    }
    process.stdout.write(`${text}\n`);
  }
  await host.close();
  return result.isError ? 1 : 0;
}

/** Runs the CLI with argv (without node and script); returns an exit code, or -1 while serving. */
export async function main(argv: string[]): Promise<number> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS }) as typeof parsed;
  } catch (error) {
    process.stderr.write(`m1nd: ${(error as Error).message}\n${HELP.main}\n`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  if (v.version) {
    process.stdout.write(`${CORE_VERSION}\n`);
    return 0;
  }
  const command = positionals[0] ?? 'serve';
  const rest = positionals.slice(1);
  if (command === 'help' || !(command in HELP) || command === 'main') {
    const known = command === 'help' || command === 'main';
    (known ? process.stdout : process.stderr).write(`${known ? '' : `m1nd: unknown command "${command}"\n`}${HELP[rest[0] ?? ''] ?? HELP.main}\n`);
    return known ? 0 : 2;
  }
  if (v.help) {
    process.stdout.write(`${HELP[command]}\n`);
    return 0;
  }
  const level = command === 'dev' || v.watch ? envLogLevel(process.env.M1ND_LOG_LEVEL ?? 'info') : envLogLevel(process.env.M1ND_LOG_LEVEL);
  // Warnings and errors (info too in dev) also reach connected clients as MCP log notifications.
  let served: Host | undefined;
  const toClients = clientSink(command === 'dev' || v.watch ? 'info' : 'warn', (lvl, logger, data) => served?.broadcastLog(lvl, logger, data));
  const log = createLogger(fanOut(stderrSink(level), toClients));
  try {
    switch (command) {
      case 'serve':
        return await serve(v, log, Boolean(v.watch), (h) => (served = h));
      case 'dev':
        return await serve(v, log, true, (h) => (served = h));
      case 'list':
        return await list(v, log);
      case 'call':
        return await call(v, rest, log);
      case 'new-plugin': {
        if (!rest[0]) {
          process.stderr.write(`${HELP['new-plugin']}\n`);
          return 2;
        }
        const files = scaffoldPlugin(rest[0], path.resolve((v.dir as string | undefined) ?? 'plugins'));
        process.stdout.write(`created:\n${files.map((f) => `  ${path.relative(process.cwd(), f)}`).join('\n')}\n`);
        return 0;
      }
    }
  } catch (error) {
    const e = error as M1ndError;
    process.stderr.write(`m1nd ${command}: ${e.message}${e.hint ? `\n  hint: ${e.hint}` : ''}\n`);
    return 1;
  }
  return 2;
}
