/**
 * Resumable Streamable HTTP: the SDK transport's `eventStore`, one per MCP session. Every message
 * sent on an SSE stream is kept here under an event id, so a client whose stream dropped (or that
 * the server asked to reconnect, `ctx.closeStream`) reconnects with `Last-Event-ID` and gets what
 * it missed. Memory is bounded per session: past `maxEvents` or `maxBytes` the oldest events go,
 * and a resume from an evicted id is refused (the client then re-issues its request).
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Per-session bounds of the replay buffer. */
export interface EventStoreLimits {
  /** Most events kept (default 1000). */
  maxEvents?: number;
  /** Most bytes of serialised messages kept (default 4 MiB). */
  maxBytes?: number;
}

export const DEFAULT_EVENT_LIMITS = { maxEvents: 1000, maxBytes: 4 * 1024 * 1024 } as const;

interface StoredEvent {
  seq: number;
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

/** A bounded, in-memory event store for one session (event ids are `<streamId>_<seq>`). */
export class SessionEventStore implements EventStore {
  private readonly maxEvents: number;
  private readonly maxBytes: number;
  /** Events in send order; `events[head]` is the oldest kept (compacted now and then). */
  private events: StoredEvent[] = [];
  private head = 0;
  private nextSeq = 1;
  private bytesKept = 0;
  /** Events dropped to stay within bounds (health of the buffer, for tests and logs). */
  evicted = 0;

  constructor(limits: EventStoreLimits = {}) {
    this.maxEvents = Math.max(1, limits.maxEvents ?? DEFAULT_EVENT_LIMITS.maxEvents);
    this.maxBytes = Math.max(1, limits.maxBytes ?? DEFAULT_EVENT_LIMITS.maxBytes);
  }

  /** Events and bytes held now. */
  get size(): { events: number; bytes: number } {
    return { events: this.events.length - this.head, bytes: this.bytesKept };
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const seq = this.nextSeq++;
    // Priming events are stored as `{}`: they only mark a position and are never replayed.
    const bytes = JSON.stringify(message).length;
    this.events.push({ seq, streamId, message, bytes });
    this.bytesKept += bytes;
    while (this.events.length - this.head > 1 && (this.events.length - this.head > this.maxEvents || this.bytesKept > this.maxBytes)) {
      this.bytesKept -= this.events[this.head].bytes;
      this.head++;
      this.evicted++;
    }
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
    return `${streamId}_${seq}`;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.find(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const at = this.find(lastEventId);
    if (!at) throw new Error(`event ${lastEventId} is unknown or no longer kept; re-issue the request`);
    const start = this.head + (at.seq - this.events[this.head].seq) + 1;
    for (let i = start; i < this.events.length; i++) {
      const e = this.events[i];
      if (e.streamId !== at.streamId || !('jsonrpc' in e.message)) continue;
      await send(`${e.streamId}_${e.seq}`, e.message);
    }
    return at.streamId;
  }

  /** The kept event with this id, found by its sequence number (ids are dense within a session). */
  private find(id: string): StoredEvent | undefined {
    const cut = id.lastIndexOf('_');
    const seq = Number(id.slice(cut + 1));
    if (cut <= 0 || !Number.isInteger(seq) || this.head >= this.events.length) return undefined;
    const index = this.head + (seq - this.events[this.head].seq);
    const e = index >= this.head ? this.events[index] : undefined;
    return e && e.seq === seq && e.streamId === id.slice(0, cut) ? e : undefined;
  }
}
