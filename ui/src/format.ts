/** Milliseconds since the epoch from an ISO string or a number (seconds or milliseconds). */
export function toMs(at: string | number | null | undefined): number | undefined {
  if (at === null || at === undefined || at === '') return undefined;
  if (typeof at === 'number') return at < 1e12 ? at * 1000 : at;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? undefined : ms;
}

export function isoTime(at: string | number | null | undefined): string {
  const ms = toMs(at);
  return ms === undefined ? '' : new Date(ms).toISOString();
}

/** "12 s ago", "3 min ago", "5 h ago", "2 d ago". */
export function ago(at: string | number | null | undefined, now = Date.now()): string {
  const ms = toMs(at);
  if (ms === undefined) return '—';
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return `in ${fmtSpan(-s)}`;
  if (s < 5) return 'just now';
  return `${fmtSpan(s)} ago`;
}

function fmtSpan(s: number): string {
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

export function num(n: number | null | undefined): string {
  return typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US') : '—';
}

export function ms(n: number | null | undefined): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  return n < 10 ? `${n.toFixed(1)} ms` : `${Math.round(n).toLocaleString('en-US')} ms`;
}

/** The last path segment of a node id or path, for short labels. */
export function tail(id: string): string {
  const parts = id.split(/[/:#]/).filter(Boolean);
  return parts[parts.length - 1] ?? id;
}
