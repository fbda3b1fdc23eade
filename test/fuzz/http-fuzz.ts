/**
 * Posts the fuzz messages to a Streamable HTTP endpoint inside one MCP session and checks that
 * every POST got an answer: a JSON-RPC response with the message's id (JSON or SSE), a JSON-RPC
 * error with id null for what cannot be parsed, or 202 for notifications — never a 5xx or silence.
 */
import http from 'node:http';
import type { FuzzMessage } from './messages.ts';

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' };
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** One POST; resolves with the status and the JSON-RPC messages in the body (SSE data lines or JSON). */
export function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; messages: any[] }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...HEADERS, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const messages: any[] = [];
        if (String(res.headers['content-type']).includes('text/event-stream')) {
          for (const l of text.split('\n')) if (l.startsWith('data: ')) messages.push(JSON.parse(l.slice(6)));
        } else if (text.trim()) {
          messages.push(JSON.parse(text));
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, messages });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens an MCP session with a raw initialize; returns its id. */
export async function openSession(url: string): Promise<string> {
  const r = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } }));
  const id = r.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error(`no session id (status ${r.status})`);
  await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': id });
  return id;
}

/** The outcome of an HTTP fuzz run. */
export interface HttpFuzzReport {
  sent: number;
  serverErrors: number;
  unanswered: { family: string; line: string; status: number }[];
  statuses: Record<number, number>;
  elapsedMs: number;
}

/** Posts every message (a few at a time) in one session and classifies the answers. */
export async function fuzzHttp(url: string, session: string, messages: FuzzMessage[], concurrency = 4): Promise<HttpFuzzReport> {
  const t0 = performance.now();
  const statuses: Record<number, number> = {};
  const unanswered: HttpFuzzReport['unanswered'] = [];
  let serverErrors = 0;
  let next = 0;
  const worker = async () => {
    while (next < messages.length) {
      const m = messages[next++];
      // An empty body is not a message over HTTP: send the blank line as it is (a parse error).
      const r = await post(url, m.line, { 'mcp-session-id': session });
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (r.status >= 500) serverErrors++;
      // HTTP carries JSON-RPC batches (answered per inner id); an empty one holds no message (202).
      const batch = m.line.startsWith('[') ? (JSON.parse(m.line) as unknown[]) : null;
      const batchIds = batch && batch.every((x) => x !== null && typeof x === 'object') ? (batch as { id?: unknown }[]).map((x) => x.id) : null;
      const ok = batchIds
        ? batchIds.length === 0
          ? r.status === 202
          : batchIds.every((id) => r.messages.some((x) => x.id === id))
        : m.expect === 'none'
          ? r.status === 202 || r.status === 400
          : m.expect === 'null'
            ? r.status >= 400 && r.messages.some((x) => x.error && x.id === null)
            : r.messages.some((x) => x.id === (m.expect as { id: unknown }).id) || (r.status === 400 && r.messages.some((x) => x.error && x.id === null));
      if (!ok) unanswered.push({ family: m.family, line: m.line.slice(0, 120), status: r.status });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { sent: messages.length, serverErrors, unanswered, statuses, elapsedMs: performance.now() - t0 };
}
