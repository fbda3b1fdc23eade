/**
 * The `m1nd` command line: serve (stdio or Streamable HTTP), dev (serve with hot reload), list,
 * call (a verb without an MCP host), new-plugin. `m1nd --help` lists the commands; every command
 * takes --help (texts in core/cli-help.ts). Results print for a person on a terminal and as JSON
 * otherwise (core/cli-render.ts).
 */
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { startHost, type BootOptions, type PreparedGeneration } from './boot.ts';
import { clientSink, createLogger, envLogLevel, fanOut, stderrSink, type Logger } from './log.ts';
import { CORE_VERSION } from './version.ts';
import { cacheDir } from './cache-file.ts';
import { useTokenizerCache } from './tokens.ts';
import { watchForReload } from './dev.ts';
import { leanServerHeap } from './cli-heap.ts';
import { bootCheckpoint } from './boot-checkpoint.ts';
import { scaffoldPlugin, wirePlugin } from './scaffold.ts';
import { M1ndError } from './errors.ts';
import { minimalArguments } from './validation.ts';
import { HELP } from './cli-help.ts';
import { humanOutput, renderResultText, table } from './cli-render.ts';
import type { Host } from './host.ts';

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
  human: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  dir: { type: 'string' },
  'no-wire': { type: 'boolean' },
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

/** The one start-up line on stderr: version, workspace, tier, transport, verbs advertised / registered. */
export function banner(host: Host, transport: string, watching: boolean): string {
  const gen = host.current;
  const surface = gen.surface();
  const quarantined = gen.quarantined().length;
  return (
    `m1nd ${CORE_VERSION} serving MCP ${transport} · workspace ${gen.settings.workspaceRoot} · tier ${surface.tier} · ` +
    `${surface.counts.advertised}/${surface.counts.registry} verbs advertised/registered` +
    `${gen.settings.readOnly ? ' · read-only' : ''}${watching ? ' · watching for changes' : ''}` +
    `${quarantined ? ` · ${quarantined} plugin${quarantined > 1 ? 's' : ''} quarantined (m1nd list shows why)` : ''}\n`
  );
}

async function serve(v: Values, log: Logger, watch: boolean, onHost: (h: Host) => void): Promise<number> {
  const host = await startHost(bootOptions(v, log, watch));
  // A server lives long: its young generation, held at 2 × 1 MB while the code loaded (bin/m1nd.js), grows to its set size and stays there (core/cli-heap.ts).
  leanServerHeap();
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
    const options = {
      port,
      host: (v.host as string | undefined) ?? cfg.host,
      ...httpAuthOptions(process.env, cfg, v['allow-agent-switch'] === true),
      allowedHosts: list(process.env.M1ND_HTTP_ALLOWED_HOSTS, cfg.allowedHosts),
      allowedOrigins: list(process.env.M1ND_HTTP_ALLOWED_ORIGINS, cfg.allowedOrigins),
      maxBodyBytes: cfg.maxBodyBytes,
      log,
    };
    const server = await serveHttp(host, options).catch(async (error: NodeJS.ErrnoException) => {
      // `m1nd ui` without --port takes any free port when the default one is busy (another server).
      if (!v.ui || port !== undefined || error?.code !== 'EADDRINUSE') throw error;
      return serveHttp(host, { ...options, port: 0 });
    });
    if (!v.quiet) process.stderr.write(banner(host, `at ${server.url}`, watch));
    closers.push(() => server.close());
    if (v.ui) {
      const { announceDashboard } = await import('./cli-ui.ts');
      announceDashboard(host, server.url, Boolean(options.token || options.tokens || options.oauth));
    }
  } else {
    // Imported here: it loads the SDK's message schemas, which `m1nd call` never needs.
    const { GuardedStdioTransport } = await import('./stdio-transport.ts');
    const transport = new GuardedStdioTransport();
    await host.connect(transport);
    if (!v.quiet) process.stderr.write(banner(host, 'over stdio', watch));
    // A person who typed `m1nd` in a terminal: say what the silence is.
    if (!v.quiet && process.stdin.isTTY) process.stderr.write('waiting for an MCP client on stdin (Ctrl-C to stop; `m1nd --help` lists the commands)\n');
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
  // The code cache (when this process writes it) once the transport is up: it holds the MCP server's start too.
  bootCheckpoint();
  return -1;
}

async function list(v: Values, log: Logger): Promise<number> {
  const host = await startHost(bootOptions(v, log));
  bootCheckpoint();
  const gen = host.current;
  const surface = gen.surface();
  const tiers = [...gen.tierTable().tiers.keys()];
  const rows = [...surface.help.values()].map((h) => ({ verb: h.name, family: h.family, effect: h.effect, tiers: h.advertisedIn, advertised: h.advertisedNow }));
  const counts = Object.fromEntries(tiers.map((t) => [t, gen.surfaceFor(t).counts.advertised]));
  if (v.json) {
    process.stdout.write(JSON.stringify({ tier: surface.tier, registered: rows.length, counts, verbs: rows, quarantined: gen.quarantined() }, null, 2) + '\n');
  } else {
    const cells = rows.map((r) => [r.advertised ? r.verb : `${r.verb}*`, r.family, r.effect, r.tiers.join(',') || '(never advertised)']);
    process.stdout.write(table(['verb', 'family', 'effect', 'tiers'], cells));
    process.stdout.write(`\n${rows.length} registered; tier "${surface.tier}" advertises ${surface.counts.advertised} (* = not advertised, still callable)\n`);
    process.stdout.write(`per tier: ${Object.entries(counts).map(([t, n]) => `${t} ${n}`).join(', ')}\n`);
    for (const q of gen.quarantined()) process.stdout.write(`quarantined: ${q.plugin} (${q.code} at ${q.check}): ${q.message}\n`);
  }
  await host.close();
  return 0;
}

/** `m1nd call VERB '{…}'` with the verb's own required parameters (agent_id left to its default), once a host knows the verb. */
async function callExample(v: Values, verb: string, log: Logger): Promise<string> {
  let example: Record<string, unknown> | undefined;
  let known = true;
  try {
    const host: Host = await startHost(bootOptions(v, log));
    const input = host.current.get(verb)?.input;
    known = input !== undefined;
    await host.close();
    if (input) {
      example = minimalArguments(input);
      delete example.agent_id;
    }
  } catch {
    // the example stays generic
  }
  if (!known) return `no verb "${verb}" is registered: m1nd list shows them; then m1nd call VERB '{"param":"value"}'`;
  const shown = example ? JSON.stringify(example) : '{"param":"value"}';
  return `m1nd call ${verb} '${shown}' (one JSON object, quoted for the shell); parameters: m1nd call help '{"tool_name":"${verb}"}'`;
}

async function call(v: Values, positionals: string[], log: Logger): Promise<number> {
  const [verb, json, ...extra] = positionals;
  if (!verb) {
    process.stderr.write(`${HELP.call}\n`);
    return 2;
  }
  // A shell splits unquoted JSON into words: a word after the arguments is never dropped silently.
  if (extra.length > 0) {
    process.stderr.write(`m1nd call: unexpected argument "${extra[0]}" after the arguments: pass one JSON object\n  try: ${await callExample(v, verb, log)}\n`);
    return 2;
  }
  let args: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      process.stderr.write(`m1nd call: arguments are not JSON: ${(error as Error).message}\n  try: ${await callExample(v, verb, log)}\n`);
      return 2;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      process.stderr.write(`m1nd call: arguments must be a JSON object, got ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : `a ${typeof parsed}`}\n  try: ${await callExample(v, verb, log)}\n`);
      return 2;
    }
    args = parsed as Record<string, unknown>;
  }
  args.agent_id ??= 'cli';
  const host: Host = await startHost(bootOptions(v, log));
  bootCheckpoint();
  // The progress bar is for a person watching a terminal; a log file or pipe gets no \r-redrawn lines.
  const result = await host.call(verb, args, { sendProgress: process.stderr.isTTY ? progressBar() : undefined });
  const human = humanOutput(v, process.stdout.isTTY);
  for (const c of result.content) {
    if (c.type !== 'text') continue;
    if (human) {
      process.stdout.write(renderResultText(c.text));
      continue;
    }
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

/** `m1nd new-plugin NAME`: writes the folder, wires its parent folder into the config, prints next steps. */
async function newPlugin(v: Values, name: string): Promise<number> {
  const workspace = path.resolve((v.workspace as string | undefined) ?? process.env.M1ND_WORKSPACE ?? process.cwd());
  const dir = path.resolve(workspace, (v.dir as string | undefined) ?? 'plugins');
  const files = scaffoldPlugin(name, dir);
  const rel = (f: string) => path.relative(process.cwd(), f) || '.';
  process.stdout.write(`created:\n${files.map((f) => `  ${rel(f)}`).join('\n')}\n`);
  const wired = await wirePlugin(workspace, dir, { configPath: v.config as string | undefined, edit: !v['no-wire'] });
  process.stdout.write(`${wired.message}\n`);
  const testFile = files.find((f) => f.endsWith('.test.ts'))!;
  const verb = `${name.replace(/-/g, '_')}_hello`;
  process.stdout.write(
    [
      '',
      'next steps:',
      `  1. try it:        m1nd call ${verb} '{"name":"you"}'${v.workspace ? ` --workspace ${rel(workspace)}` : ''}`,
      `  2. test it:       node --import tsx --test ${rel(testFile)}`,
      `  3. develop:       m1nd dev   (reloads the plugin on every save; clients get tools/list_changed)`,
      `  4. add verbs:     copy ${rel(files.find((f) => f.includes(`${path.sep}verbs${path.sep}`))!)}, register it in ${rel(files.find((f) => f.endsWith('index.ts'))!)}`,
      '',
    ].join('\n'),
  );
  return 0;
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
  // The tokenizer's rank table is kept in the user's cache folder (M1ND_CACHE_DIR; `off` for none).
  useTokenizerCache(cacheDir(process.env));
  if (v.version) {
    process.stdout.write(`${CORE_VERSION}\n`);
    return 0;
  }
  // `m1nd --help` lists the commands; a bare `m1nd` serves (what MCP hosts run).
  const command = positionals[0] ?? (v.help ? 'help' : 'serve');
  const rest = positionals.slice(1);
  if (command === 'help') {
    const topic = rest[0];
    if (topic !== undefined && !(topic in HELP && topic !== 'main')) {
      process.stderr.write(`m1nd help: unknown command "${topic}"\n${HELP.main}\n`);
      return 2;
    }
    process.stdout.write(`${HELP[topic ?? 'main']}\n`);
    return 0;
  }
  if (!(command in HELP) || command === 'main') {
    process.stderr.write(`m1nd: unknown command "${command}"\n${HELP.main}\n`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(`${HELP[command]}\n`);
    return 0;
  }
  const level = command === 'dev' || v.watch ? envLogLevel(process.env.M1ND_LOG_LEVEL ?? 'info') : envLogLevel(process.env.M1ND_LOG_LEVEL);
  // Log lines also reach connected clients as MCP log notifications: warnings and errors (info too
  // in dev) until a session's logging/setLevel picks its own threshold. stderr keeps `level`.
  let served: Host | undefined;
  const toClients = clientSink(command === 'dev' || v.watch ? 'info' : 'warn', (lvl, logger, data, fallback, audience) => served?.broadcastLog(lvl, logger, data, fallback, audience));
  const log = createLogger(fanOut(stderrSink(level), toClients));
  try {
    switch (command) {
      case 'serve':
        return await serve(v, log, Boolean(v.watch), (h) => (served = h));
      case 'dev':
        return await serve(v, log, true, (h) => (served = h));
      case 'ui':
        return await serve({ ...v, http: true, ui: true }, log, Boolean(v.watch), (h) => (served = h));
      case 'list':
        return await list(v, log);
      case 'call':
        return await call(v, rest, log);
      case 'new-plugin': {
        if (!rest[0]) {
          process.stderr.write(`${HELP['new-plugin']}\n`);
          return 2;
        }
        return await newPlugin(v, rest[0]);
      }
    }
  } catch (error) {
    const e = error as M1ndError;
    process.stderr.write(`m1nd ${command}: ${e.message}${e.hint ? `\n  hint: ${e.hint}` : ''}\n`);
    return 1;
  }
  return 2;
}
