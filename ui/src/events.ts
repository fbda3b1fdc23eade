// The live feed: one Server-Sent Events stream (api/events) read with fetch and a ReadableStream so
// the bearer token travels in a header (EventSource cannot send one). Reconnects with a growing
// pause; a 401 hands over to the token prompt.
import { authHeaders, authRequired } from './api.ts';

export type EventKind = 'call' | 'memory' | 'lock' | 'alert' | 'graph';
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'off';
export interface LiveEvent {
  kind: string;
  data: unknown;
}

type Listener = (event: LiveEvent) => void;

const listeners = new Set<Listener>();
const statusListeners = new Set<(s: LiveStatus) => void>();
let status: LiveStatus = 'off';
let controller: AbortController | undefined;

function setStatus(next: LiveStatus): void {
  status = next;
  for (const l of statusListeners) l(next);
}

export function liveStatus(): LiveStatus {
  return status;
}

export function onLiveStatus(listener: (s: LiveStatus) => void): () => void {
  statusListeners.add(listener);
  return () => statusListeners.delete(listener);
}

export function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Splits SSE text into events: `event:`/`data:` fields, comments (`: ping`) ignored. */
export function parseFrames(buffer: string): { events: LiveEvent[]; rest: string } {
  const events: LiveEvent[] = [];
  const frames = buffer.split(/\r?\n\r?\n/);
  const rest = frames.pop() ?? '';
  for (const frame of frames) {
    let kind = 'message';
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') kind = value;
      else if (field === 'data') data.push(value);
    }
    if (!data.length) continue;
    const text = data.join('\n');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A non-JSON payload is passed on as text.
    }
    events.push({ kind, data: parsed });
  }
  return { events, rest };
}

export function startLive(): void {
  stopLive();
  const ctl = new AbortController();
  controller = ctl;
  void run(ctl.signal);
}

export function stopLive(): void {
  controller?.abort();
  controller = undefined;
  setStatus('off');
}

const KINDS: readonly EventKind[] = ['call', 'memory', 'lock', 'alert', 'graph'];

function emit(event: LiveEvent): void {
  for (const l of listeners) l(event);
}

async function run(signal: AbortSignal): Promise<void> {
  let pause = 1000;
  let reconnected = false;
  setStatus('connecting');
  while (!signal.aborted) {
    try {
      const res = await fetch('api/events', { headers: { Accept: 'text/event-stream', ...authHeaders() }, signal, cache: 'no-store' });
      if (res.status === 401) {
        setStatus('off');
        authRequired();
        return;
      }
      if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
      setStatus('live');
      pause = 1000;
      // Events sent while the stream was down are lost: every view refetches once.
      if (reconnected) for (const kind of KINDS) emit({ kind, data: { kind: 'resync' } });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const { events, rest } = parseFrames(buffer);
        buffer = rest;
        for (const e of events) emit(e);
      }
    } catch {
      if (signal.aborted) return;
    }
    if (signal.aborted) return;
    reconnected = true;
    setStatus('reconnecting');
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 15000);
  }
}
