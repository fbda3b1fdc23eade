/**
 * The `m1nd` command line. `m1nd serve` (default) serves MCP over stdio.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { startHost } from './boot.ts';
import { createLogger, envLogLevel, stderrSink } from './log.ts';
import { CORE_VERSION } from './version.ts';

const USAGE = `m1nd ${CORE_VERSION} — MCP server: shared code-graph memory for coding agents

Usage:
  m1nd serve [--read-only] [--tier T] [--workspace DIR]   serve MCP over stdio (default command)
  m1nd --version | --help

Environment: M1ND_TOOL_TIER, M1ND_READ_ONLY, M1ND_PROOF_GATE, M1ND_RESULT_TOKEN_LIMIT,
M1ND_RESPONSE_ENVELOPE, M1ND_HANDLER_TIMEOUT_MS, M1ND_WORKSPACE, M1ND_STORE_DIR, M1ND_LOG_LEVEL.`;

/** Runs the CLI with argv (without node and script). */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'read-only': { type: 'boolean' },
      tier: { type: 'string' },
      workspace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version) {
    process.stdout.write(`${CORE_VERSION}\n`);
    return 0;
  }
  const command = positionals[0] ?? 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command !== 'serve') {
    process.stderr.write(`m1nd: unknown command "${command}"\n${USAGE}\n`);
    return 2;
  }
  const log = createLogger(stderrSink(envLogLevel(process.env.M1ND_LOG_LEVEL)));
  const overrides: Record<string, unknown> = {};
  if (values['read-only']) overrides.readOnly = true;
  if (values.tier) overrides.requestedTier = values.tier;
  const host = await startHost({ workspaceRoot: values.workspace, overrides, log });
  await host.connect(new StdioServerTransport());
  const stop = async () => {
    await host.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdin.once('end', stop);
  return -1;
}
