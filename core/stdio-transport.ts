/**
 * The stdio transport, guarded: the SDK's StdioServerTransport drops a line it cannot parse without
 * a reply, and on a line over 10 MiB closes itself while the process lives on, deaf. This one
 * answers every unparseable line that may carry an id (-32700 for broken JSON, -32600 for a message
 * that is not JSON-RPC, with the id when one can be read, else null), reports a too-long line and
 * ends (`ended` settles with an exit code and a reason the CLI logs on stderr before exiting), ends
 * the same way when stdin closes, and waits for stdout to drain through one shared listener.
 */
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Default longest accepted line (the SDK's own limit). */
export const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

/** Why the transport ended and the exit code a process serving it should use. */
export interface StdioEnd {
  code: number;
  reason: string;
}

type RpcId = string | number | null;

function readableId(raw: unknown): RpcId {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** A message that asks for no answer: a well-formed notification shape (a method and no id). */
function isNotificationShape(raw: unknown): boolean {
  return !!raw && typeof raw === 'object' && !Array.isArray(raw) && !('id' in raw) && typeof (raw as { method?: unknown }).method === 'string';
}

/** MCP over stdin/stdout that answers or reports every fault instead of going silent. */
export class GuardedStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Settles once when the transport ends (stdin closed, a line too long, close()). */
  readonly ended: Promise<StdioEnd>;
  private settle!: (end: StdioEnd) => void;
  private pieces: Buffer[] = [];
  private pending = 0;
  private drained: Promise<void> | undefined;
  private closed = false;
  private readonly maxLineBytes: number;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    options: { maxLineBytes?: number } = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.ended = new Promise((resolve) => (this.settle = resolve));
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
    this.stdin.once('end', this.onEnd);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    // Collect pieces and join once per line: concatenating per chunk is quadratic in the line length.
    for (let nl = buf.indexOf(10); nl >= 0 && !this.closed; nl = buf.indexOf(10)) {
      const line = this.pieces.length ? Buffer.concat([...this.pieces, buf.subarray(0, nl)]) : buf.subarray(0, nl);
      this.pieces = [];
      this.pending = 0;
      buf = buf.subarray(nl + 1);
      if (line.length > this.maxLineBytes) return this.tooLong(line.length);
      this.handleLine(line.toString('utf8').replace(/\r$/, ''));
    }
    if (this.closed || buf.length === 0) return;
    this.pending += buf.length;
    if (this.pending > this.maxLineBytes) return this.tooLong(this.pending);
    this.pieces.push(buf);
  };

  private readonly onStdinError = (error: Error): void => {
    this.onerror?.(error);
    void this.end({ code: 1, reason: `stdin failed: ${error.message}` });
  };

  private readonly onEnd = (): void => {
    void this.end({ code: 0, reason: 'stdin closed' });
  };

  private tooLong(bytes: number): void {
    this.pieces = [];
    this.pending = 0;
    void this.sendError(null, -32600, `Invalid Request: a message line is longer than ${this.maxLineBytes} bytes (${bytes}+); the server stops reading`).finally(() =>
      this.end({ code: 1, reason: `a message line exceeded ${this.maxLineBytes} bytes` }),
    );
  }

  private handleLine(text: string): void {
    if (text.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      this.onerror?.(new Error(`parse error: ${(error as Error).message}`));
      void this.sendError(null, -32700, 'Parse error: invalid JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    this.onerror?.(new Error('invalid JSON-RPC message'));
    // A malformed notification asks for no answer; anything else that could carry an id gets one.
    if (isNotificationShape(raw)) return;
    const why = Array.isArray(raw) ? 'batch arrays are not supported; send one message per line' : 'not a valid JSON-RPC 2.0 message (check jsonrpc, id: string or integer, method, params)';
    void this.sendError(readableId(raw), -32600, `Invalid Request: ${why}`);
  }

  private sendError(id: RpcId, code: number, message: string): Promise<void> {
    return this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  private write(text: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.stdout.write(text)) return Promise.resolve();
    // One drain listener shared by every writer waiting (one per write overflowed MaxListeners).
    this.drained ??= new Promise((resolve) =>
      this.stdout.once('drain', () => {
        this.drained = undefined;
        resolve();
      }),
    );
    return this.drained;
  }

  private async end(end: StdioEnd): Promise<void> {
    if (this.closed) return;
    this.settle(end);
    await this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    this.stdin.off('end', this.onEnd);
    this.stdin.pause();
    this.pieces = [];
    this.settle({ code: 0, reason: 'closed by the server' });
    this.onclose?.();
  }
}
