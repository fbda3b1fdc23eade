/**
 * `m1nd ui`: after the HTTP server is up, print the address of the page a plugin serves at `/` (the
 * dashboard) and open it in a browser when this is a person's terminal on a desktop. Opening is
 * best effort: no browser, no display or a failing opener only leaves the printed address.
 */
import { spawn } from 'node:child_process';
import type { Host } from './host.ts';

/** Prints the page's address (stdout) and, on an interactive desktop, opens it. */
export function announceDashboard(host: Host, mcpUrl: string, tokens: boolean): void {
  const url = new URL('/', mcpUrl).href;
  const served = host.current.routes.match('GET', '/');
  if (!served || 'methods' in served) {
    process.stderr.write(`m1nd ui: no plugin serves a page at / (is the dashboard plugin loaded? \`m1nd list\` shows quarantines); MCP is at ${mcpUrl}\n`);
    return;
  }
  process.stdout.write(`${url}\n`);
  if (tokens) process.stderr.write('the dashboard asks for one of the server\'s bearer tokens (M1ND_HTTP_TOKEN / M1ND_HTTP_TOKENS)\n');
  const opener = browserOpener(process.platform, process.env);
  if (!opener || !process.stdin.isTTY || !process.stdout.isTTY) return;
  try {
    const child = spawn(opener.command, [...opener.args, url], { detached: true, stdio: 'ignore' });
    child.on('error', () => process.stderr.write(`could not open a browser (${opener.command}); open ${url} yourself\n`));
    child.unref();
  } catch {
    process.stderr.write(`could not open a browser; open ${url} yourself\n`);
  }
}

/** The command that opens a URL in the default browser here, or null where there is no desktop to show it. */
export function browserOpener(platform: NodeJS.Platform, env: Record<string, string | undefined>): { command: string; args: string[] } | null {
  if (env.M1ND_NO_BROWSER) return null;
  if (platform === 'darwin') return { command: 'open', args: [] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] };
  // Linux and the BSDs: only with a display; xdg-open may still be missing (the spawn error is reported).
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  return { command: 'xdg-open', args: [] };
}
