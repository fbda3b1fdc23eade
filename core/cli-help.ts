/** The command line's help texts: `m1nd --help` (the command list) and `m1nd COMMAND --help`. */
import { CORE_VERSION } from './version.ts';

const COMMON = `Common options:
  --config PATH      config file (default: m1nd.config.{ts,mts,js,mjs} in the workspace, if any)
  --workspace DIR    workspace root (default: current directory, or M1ND_WORKSPACE)
  --tier T           advertised tier (overrides M1ND_TOOL_TIER and the config)
  --read-only        refuse every write/destructive verb
  -h, --help         help for the command`;

const OUTPUT = `Output: for a person on a terminal (YAML-like, text unescaped), JSON when stdout is not a
terminal (pipes and scripts); --json forces JSON, --human forces the readable form.`;

/** One line per command, in the order `m1nd --help` lists them. */
export const COMMANDS: [string, string][] = [
  ['serve', 'serve MCP over stdio (the default command) or Streamable HTTP (--http)'],
  ['dev', 'serve with hot reload of plugins, bundles and the config'],
  ['ui', 'serve over HTTP and print the team dashboard\'s address (opens a browser when there is one)'],
  ['list', 'the verb catalog: family, effect and tiers of every verb, counts per tier'],
  ['call', `call one verb without an MCP host: m1nd call VERB '{"path":"."}'`],
  ['new-plugin', 'scaffold a plugin folder and wire it into m1nd.config.ts'],
  ['help', 'this list, or a command\'s help: m1nd help COMMAND'],
];

export const HELP: Record<string, string> = {
  main: `m1nd ${CORE_VERSION} — MCP server: shared code-graph memory and context for coding agents

Usage: m1nd [command] [options]      (no command: serve over stdio, what MCP hosts run)

Commands:
${COMMANDS.map(([c, d]) => `  ${c.padEnd(12)} ${d}`).join('\n')}

Run \`m1nd COMMAND --help\` for a command's options; \`m1nd --version\` prints the version.

${COMMON}

Environment: M1ND_TOOL_TIER, M1ND_READ_ONLY, M1ND_PROOF_GATE, M1ND_RESULT_TOKEN_LIMIT,
M1ND_RESPONSE_ENVELOPE, M1ND_HANDLER_TIMEOUT_MS, M1ND_WORKSPACE, M1ND_STORE_DIR,
M1ND_STORE_URL (postgres://… team store), M1ND_REPOSITORY_ID,
M1ND_HTTP_TOKEN, M1ND_HTTP_TOKENS (JSON or file), M1ND_HTTP_ALLOW_AGENT_SWITCH,
M1ND_HTTP_AUTH_ISSUER, M1ND_HTTP_AUTH_AUDIENCE, M1ND_HTTP_AUTH_AGENT_CLAIM, M1ND_HTTP_AUTH_JWKS_URI,
M1ND_HTTP_ALLOWED_HOSTS, M1ND_HTTP_ALLOWED_ORIGINS (comma-separated), M1ND_LOG_LEVEL (debug|info|warn|error).`,
  serve: `Usage: m1nd serve [--http [--port N] [--host ADDR]] [--watch] [options]
Serves MCP. On start it prints one line on stderr: version, workspace, tier, transport and the
verbs advertised / registered (--quiet leaves it out).
  --http        Streamable HTTP on 127.0.0.1 (default port 7463) instead of stdio
  --port N      HTTP port (0 = any free port)
  --host ADDR   bind address; a non-loopback address requires M1ND_HTTP_TOKEN(S) or an auth issuer
  --allow-agent-switch  one HTTP session may act as several agent ids (loopback only; weaker isolation)
  --watch       hot reload (same as m1nd dev)
  --quiet       no start-up line

${COMMON}`,
  dev: `Usage: m1nd dev [--http [--port N]] [options]
Serves like \`m1nd serve\` and watches plugin folders, bundles and the config file: each change
builds a new generation, swapped in only if it loads cleanly (clients get tools/list_changed).
Logs at info level on stderr (M1ND_LOG_LEVEL changes it).

${COMMON}`,
  ui: `Usage: m1nd ui [--port N] [--host ADDR] [--watch] [options]
Serves the workspace over Streamable HTTP like \`m1nd serve --http\` and prints the team dashboard's
address on stdout. On a terminal with a desktop it opens the page in the default browser; without
one it only prints the address. Without --port it takes port 7463, or any free port when that one
is busy. With M1ND_HTTP_TOKEN(S) set, the page asks for a token and keeps it for the tab only.
  --port N      HTTP port (0 = any free port)
  --host ADDR   bind address; a non-loopback address requires M1ND_HTTP_TOKEN(S) or an auth issuer
  --watch       hot reload (as m1nd dev)
  --quiet       no start-up line

${COMMON}`,
  list: `Usage: m1nd list [--tier T] [--json] [options]
Prints every registered verb in aligned columns: family, effect, the tiers advertising it (* marks
a verb tier T does not advertise; it stays callable); then the counts per tier and any quarantined
plugin. --json prints the same as one JSON object.

${COMMON}`,
  call: `Usage: m1nd call VERB ['{"json":"arguments"}'] [--json | --human] [options]
Runs one verb through the full pipeline (gates, validation, shaping) and prints its result.
agent_id defaults to "cli". Exit code 1 when the verb answers an error, 2 on bad usage.
${OUTPUT}

${COMMON}`,
  'new-plugin': `Usage: m1nd new-plugin NAME [--dir DIR] [--no-wire]
Writes DIR/NAME (default DIR: ./plugins) with index.ts, verbs/<name>_hello.ts and NAME.test.ts,
then adds DIR to \`plugins.dirs\` in the workspace's m1nd.config.ts (creating the file if there is
none); when it cannot edit the config safely it prints the one line to add. --no-wire only prints it.
The generated test runs with Node's own runner: node --import tsx --test DIR/NAME/NAME.test.ts`,
};
