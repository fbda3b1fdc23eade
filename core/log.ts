/** A small leveled logger writing to stderr (stdout belongs to the stdio transport). */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
  /** A logger whose lines carry this scope (e.g. the plugin name). */
  child(scope: string): Logger;
  /** A logger whose lines reach only the MCP sessions that have called as this agent (stderr still gets every line). */
  to(agentId: string): Logger;
}

export interface LogSink {
  /** `audience`: the agent a line is meant for (sinks that reach clients send it only to that agent's sessions). */
  (level: LogLevel, scope: string, message: string, data?: unknown, audience?: string): void;
}

/** Writes `[m1nd] level scope: message` lines to stderr at or above the level. */
export function stderrSink(minLevel: LogLevel): LogSink {
  return (level, scope, message, data) => {
    if (ORDER[level] < ORDER[minLevel]) return;
    const tail = data === undefined ? '' : ' ' + safeJson(data);
    process.stderr.write(`[m1nd] ${level} ${scope}: ${message}${tail}\n`);
  };
}

/** A sink that writes to every sink given. */
export function fanOut(...sinks: LogSink[]): LogSink {
  return (level, scope, message, data, audience) => {
    for (const sink of sinks) sink(level, scope, message, data, audience);
  };
}

/** MCP's name for a level (`warning`, not `warn`). */
export type ClientLogLevel = 'debug' | 'info' | 'warning' | 'error';

/**
 * Forwards every line to MCP clients through `send` (MCP says `warning`, not `warn`), with
 * `defaultLevel`: the threshold of a session that has not sent logging/setLevel. Each session's own
 * setLevel then lowers or raises its threshold (core/mcp-server.ts filters per session).
 */
export function clientSink(defaultLevel: LogLevel, send: (level: ClientLogLevel, logger: string, data: unknown, defaultLevel: ClientLogLevel, audience?: string) => void): LogSink {
  const fallback = toClientLevel(defaultLevel);
  return (level, scope, message, data, audience) => send(toClientLevel(level), `m1nd/${scope}`, data === undefined ? message : { message, data }, fallback, audience);
}

function toClientLevel(level: LogLevel): ClientLogLevel {
  return level === 'warn' ? 'warning' : level;
}

/** A logger over any sink; sinks can be fanned out by composing them. */
export function createLogger(sink: LogSink, scope = 'host', audience?: string): Logger {
  const at = (level: LogLevel) => (message: string, data?: unknown) => sink(level, scope, message, data, audience);
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (child) => createLogger(sink, `${scope}/${child}`, audience),
    to: (agentId) => createLogger(sink, scope, agentId),
  };
}

/** The level named by M1ND_LOG_LEVEL, defaulting to warn so stdio hosts stay quiet. */
export function envLogLevel(value: string | undefined): LogLevel {
  const v = (value ?? '').trim().toLowerCase();
  return v in ORDER ? (v as LogLevel) : 'warn';
}

function safeJson(data: unknown): string {
  try {
    return JSON.stringify(data instanceof Error ? { message: data.message } : data);
  } catch {
    return String(data);
  }
}
