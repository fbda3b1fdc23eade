/**
 * The dashboard's live feed: events (`call`, `memory`, `lock`, `alert`, `graph`) published by the
 * plugin's taps and store listeners, pushed to every connected Server-Sent Events client. Each client
 * has a bounded queue: a client that does not read (its socket's buffer full and the queue past its
 * bound) is dropped, never allowed to grow the server's memory. Publishing with nobody listening
 * costs one size check.
 */
import type { ServerResponse } from 'node:http';

export type FeedEvent = 'call' | 'memory' | 'lock' | 'alert' | 'graph';

export const FEED_LIMITS = Object.freeze({
  /** Clients at once; a new one past it is refused (503). */
  clients: 32,
  /** Frames queued for a client whose socket is not draining; past it the client is dropped. */
  queuedFrames: 256,
  /** Bytes queued, likewise. */
  queuedBytes: 1024 * 1024,
  /** A `: ping` comment keeps proxies and the browser from closing a quiet stream. */
  pingMs: 15_000,
  /** How often `onTick` runs while a client is connected (changes no call reports, e.g. a watcher's re-ingest). */
  tickMs: 2_000,
});

/** One SSE client: writes while the socket drains, queues (bounded) while it does not. */
export class FeedClient {
  private queue: string[] = [];
  private queuedBytes = 0;
  private waiting = false;
  closed = false;
  /** Why the server dropped it, when it did. */
  dropped?: string;

  constructor(
    private readonly res: ServerResponse,
    private readonly onClose: (client: FeedClient) => void,
  ) {
    res.on('close', () => this.close());
    res.on('drain', () => this.flush());
  }

  send(frame: string): void {
    if (this.closed) return;
    if (this.waiting) {
      this.queue.push(frame);
      this.queuedBytes += frame.length;
      if (this.queue.length > FEED_LIMITS.queuedFrames || this.queuedBytes > FEED_LIMITS.queuedBytes) this.drop('slow client: its queue passed the bound');
      return;
    }
    if (!this.res.write(frame)) this.waiting = true;
  }

  private flush(): void {
    this.waiting = false;
    while (this.queue.length > 0 && !this.waiting && !this.closed) {
      const frame = this.queue.shift()!;
      this.queuedBytes -= frame.length;
      if (!this.res.write(frame)) this.waiting = true;
    }
  }

  drop(reason: string): void {
    this.dropped = reason;
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.onClose(this);
    if (!this.res.writableEnded) this.res.end();
  }
}

/** The set of SSE clients and what is published to them. */
export class DashboardFeed {
  readonly clients = new Set<FeedClient>();
  private pinger: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  /** Runs every FEED_LIMITS.tickMs while a client is connected (set by the plugin). */
  onTick: (() => void) | undefined;
  /** Frames sent since start (all clients), and clients dropped for being slow. */
  readonly counters = { published: 0, dropped: 0 };

  get active(): boolean {
    return this.clients.size > 0;
  }

  /** Pushes an event to every client (nothing to do without clients). */
  publish(event: FeedEvent, data: Record<string, unknown>): void {
    if (this.clients.size === 0) return;
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    this.counters.published++;
    for (const c of this.clients) c.send(frame);
  }

  /** Adopts a response as an SSE stream (headers already written by the caller); null when full. */
  attach(res: ServerResponse): FeedClient | null {
    if (this.clients.size >= FEED_LIMITS.clients) return null;
    const client = new FeedClient(res, (c) => {
      this.clients.delete(c);
      if (c.dropped) this.counters.dropped++;
      if (this.clients.size === 0) this.stopPing();
    });
    this.clients.add(client);
    this.pinger ??= setInterval(() => {
      for (const c of this.clients) c.send(': ping\n\n');
    }, FEED_LIMITS.pingMs);
    this.pinger.unref();
    this.ticker ??= setInterval(() => this.onTick?.(), FEED_LIMITS.tickMs);
    this.ticker.unref();
    return client;
  }

  /** Ends every stream (server shutdown or generation retired). */
  closeAll(): void {
    for (const c of [...this.clients]) c.close();
    this.stopPing();
  }

  private stopPing(): void {
    if (this.pinger) clearInterval(this.pinger);
    if (this.ticker) clearInterval(this.ticker);
    this.pinger = this.ticker = undefined;
  }
}
