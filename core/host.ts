/**
 * The long-lived host: one session store shared by every connection, the generation currently
 * serving, and the MCP servers connected to it. Reload builds a whole new generation and swaps it
 * in only if it loaded cleanly; calls in flight finish on the generation they started on.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { Generation } from './generation.ts';
import { dispatchCall, type DispatchOptions } from './dispatch.ts';
import { ResourceSubscriptions } from './resource-subscriptions.ts';
import { SessionStore } from './session.ts';
import { createLogger, stderrSink, type Logger } from './log.ts';
import type { PluginSource } from './plugin.ts';
import type { HostSettings } from './settings.ts';
import type { TierCuration } from './tiers.ts';
import type { QuarantineRecord } from './catalog.ts';

/**
 * core/mcp-server.ts (and with it the SDK's server, protocol and schema modules), imported on the first
 * connection: a host that only runs calls (`m1nd call`) never evaluates them.
 */
let mcpServer: typeof import('./mcp-server.ts') | undefined;

/** Everything one generation is built from; re-read on every reload. */
export interface GenerationInput {
  sources: PluginSource[];
  settings: HostSettings;
  tierCuration?: Record<string, TierCuration>;
  defaultTier?: string;
  pluginOptions?: Record<string, unknown>;
  /** Files and folders whose change should trigger a reload (dev mode). */
  watchPaths?: string[];
}

export interface HostOptions {
  /** Produces the input of generation `id` (discovers and imports plugins, reads config). */
  prepare(id: number): Promise<GenerationInput>;
  log?: Logger;
}

export interface ReloadReport {
  ok: boolean;
  /** ISO time of the attempt. */
  at: string;
  generation: number;
  added: string[];
  removed: string[];
  changed: string[];
  error?: string;
  quarantined?: QuarantineRecord[];
  elapsedMs: number;
}

export class Host {
  readonly log: Logger;
  readonly servers = new Set<Server>();
  /** Resource subscriptions of every connection, served from the current generation. */
  readonly subscriptions = new ResourceSubscriptions(() => this.current);
  session!: SessionStore;
  current!: Generation;
  /** The last failed reload, reported by health until a reload succeeds. */
  lastReloadError?: ReloadReport;
  private nextId = 1;
  private reloading: Promise<ReloadReport> | undefined;

  private constructor(private readonly options: HostOptions) {
    this.log = options.log ?? createLogger(stderrSink('warn'));
  }

  /** Builds the first generation; a bad plugin is quarantined, never fatal. */
  static async start(options: HostOptions): Promise<Host> {
    const host = new Host(options);
    const input = await options.prepare(host.nextId);
    host.session = new SessionStore(input.settings.workspaceRoot);
    host.current = await host.build(input);
    return host;
  }

  /** The input of the generation built last (what dev mode watches). */
  lastInput?: GenerationInput;

  private async build(input: GenerationInput): Promise<Generation> {
    this.lastInput = input;
    return Generation.create({
      id: this.nextId++,
      sources: input.sources,
      settings: input.settings,
      session: this.session,
      log: this.log,
      tierCuration: input.tierCuration,
      defaultTier: input.defaultTier,
      pluginOptions: input.pluginOptions,
      resourceUpdated: (uri) => this.subscriptions.updated(uri),
      // A reload's quarantines are logged once, in failedReload's line.
      candidate: this.current !== undefined,
      hostStatus: () => ({
        serving_generation: this.current?.id ?? 0,
        ...(this.lastReloadError
          ? { last_reload_error: { generation: this.lastReloadError.generation, error: this.lastReloadError.error, at: this.lastReloadError.at } }
          : {}),
      }),
    });
  }

  /** Runs a tools/call on the current generation (which stays alive until the call ends). */
  call(name: string, args: unknown, options?: DispatchOptions): Promise<CallToolResult> {
    return dispatchCall(this.current, name, args, options);
  }

  /** Creates an MCP server for one connection and connects it to the transport. */
  async connect(transport: Transport): Promise<Server> {
    const server = (mcpServer ??= await import('./mcp-server.ts')).createMcpServer(this);
    this.servers.add(server);
    server.onclose = () => {
      this.servers.delete(server);
      this.subscriptions.drop(server);
    };
    await server.connect(transport);
    return server;
  }

  /** Builds a new generation; swaps it in only if every plugin loaded, then notifies clients once. */
  reload(): Promise<ReloadReport> {
    // Reloads are serialized: a burst of edits builds generations one after another, never in parallel.
    const run = async (): Promise<ReloadReport> => {
      const started = performance.now();
      const id = this.nextId;
      let next: Generation | undefined;
      try {
        next = await this.build(await this.options.prepare(id));
      } catch (error) {
        return this.failedReload(id, started, `generation ${id} failed to build: ${(error as Error).message}`);
      }
      const quarantined = next.quarantined();
      if (quarantined.length > 0) {
        await next.shutdown().catch(() => undefined);
        return this.failedReload(id, started, quarantined.map((q) => `${q.plugin} (${q.check}): ${q.message}`).join('; '), quarantined);
      }
      const report = { ok: true, at: new Date().toISOString(), generation: next.id, ...diffCatalogs(this.current, next), elapsedMs: performance.now() - started };
      const old = this.current;
      this.current = next;
      if (old.readyFired) next.markReady();
      this.lastReloadError = undefined;
      await Promise.all([...this.servers].map((s) => s.sendToolListChanged().catch(() => undefined)));
      this.subscriptions.rewatch();
      const [was, now] = [old.resources.signature(), next.resources.signature()];
      if (was.resources !== now.resources) await Promise.all([...this.servers].map((s) => s.sendResourceListChanged().catch(() => undefined)));
      if (was.prompts !== now.prompts) await Promise.all([...this.servers].map((s) => s.sendPromptListChanged().catch(() => undefined)));
      this.log.info(`generation ${next.id} serving: +${report.added.length} -${report.removed.length} ~${report.changed.length} verbs`, report);
      void retire(old);
      return report;
    };
    const chained = (this.reloading ?? Promise.resolve()).then(run, run);
    this.reloading = chained;
    return chained;
  }

  private failedReload(id: number, started: number, error: string, quarantined?: QuarantineRecord[]): ReloadReport {
    const report: ReloadReport = { ok: false, at: new Date().toISOString(), generation: id, added: [], removed: [], changed: [], error, quarantined, elapsedMs: performance.now() - started };
    this.lastReloadError = report;
    this.log.error(`reload failed; generation ${this.current.id} keeps serving: ${error}`);
    return report;
  }

  /**
   * Sends a log line to MCP clients as `notifications/message`: to the session whose call logged
   * it, or to every session; each session's `logging/setLevel` filters it (`defaultLevel` until the
   * session sets one). A line with an `audience` (an agent id) reaches only the sessions that have
   * called as that agent. See deliverLog in core/mcp-server.ts.
   */
  broadcastLog(level: LoggingLevel, logger: string, data: unknown, defaultLevel?: LoggingLevel, audience?: string): void {
    if (mcpServer && this.servers.size > 0) mcpServer.deliverLog(this.servers, level, logger, data, defaultLevel, audience);
  }

  /** Closes every connection and shuts the current generation down. */
  async close(): Promise<void> {
    await Promise.all([...this.servers].map((s) => s.close().catch(() => undefined)));
    this.subscriptions.close();
    await this.current.shutdown();
  }
}

/** Shuts a retired generation down once its in-flight calls have finished. */
async function retire(gen: Generation): Promise<void> {
  while (gen.inFlight > 0) await new Promise((r) => setTimeout(r, 50));
  await gen.shutdown().catch(() => undefined);
}

/** Verbs added, removed and changed (description, schema, tiers or effect) between two generations. */
export function diffCatalogs(a: Generation, b: Generation): { added: string[]; removed: string[]; changed: string[] } {
  const sig = (g: Generation) =>
    new Map(g.records().map((r) => [r.name, JSON.stringify([r.description, r.input, r.output, r.tiers, String(r.effect), r.advertised, String(r.load ?? r.handler)])]));
  const sa = sig(a);
  const sb = sig(b);
  return {
    added: [...sb.keys()].filter((k) => !sa.has(k)),
    removed: [...sa.keys()].filter((k) => !sb.has(k)),
    changed: [...sb.keys()].filter((k) => sa.has(k) && sa.get(k) !== sb.get(k)),
  };
}
