/**
 * OpenTelemetry spans as the collector's file exporter writes them (OTLP JSON: one
 * `{resourceSpans:[{resource, scopeSpans:[{spans}]}]}` object per line, or one such object) or as a
 * caller posts them (those objects, or bare span objects). Reads what mapping needs: name, the
 * `code.*` attributes (and their newer `code.function.name` / `code.file.path` / `code.line.number`
 * spellings), `http.route` and the request method, duration and error status, and the service name.
 * No import beyond Node's: a worker thread reads large files with these functions (otlp-worker.ts),
 * each long loop giving the thread's event loop a turn through `pause`.
 */

/** Gives the event loop a turn (the main thread passes the graph's yieldToLoop). */
export type Pause = () => Promise<void>;
const immediate: Pause = () => new Promise((resolve) => setImmediate(resolve));

export interface SpanFacts {
  name: string;
  service: string;
  function?: string;
  namespace?: string;
  filepath?: string;
  lineno?: number;
  route?: string;
  /** HTTP request method, upper case (`http.request.method`, older `http.method`). */
  method?: string;
  durationMs: number;
  error: boolean;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type Attr = { key: string; value?: AnyValue };
type RawSpan = { name?: string; attributes?: Attr[]; startTimeUnixNano?: string | number; endTimeUnixNano?: string | number; status?: { code?: number | string } };

/** Spans read per call at most. */
export const MAX_SPANS = 200_000;

function value(v: AnyValue | undefined): string | number | boolean | undefined {
  if (!v || typeof v !== 'object') return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue;
}

/** Attributes by key; what is no `{key, value}` (an object for the list, a null entry) is left out. */
function attrs(list: Attr[] | undefined): Map<string, string | number | boolean> {
  const out = new Map<string, string | number | boolean>();
  if (!Array.isArray(list)) return out;
  for (const a of list) {
    if (!a || typeof a !== 'object' || typeof a.key !== 'string') continue;
    const v = value(a.value);
    if (v !== undefined) out.set(a.key, v);
  }
  return out;
}

function facts(span: RawSpan, service: string): SpanFacts {
  const a = attrs(span.attributes);
  const str = (...keys: string[]) => keys.map((k) => a.get(k)).find((v) => typeof v === 'string' && v !== '') as string | undefined;
  const num = (...keys: string[]) => keys.map((k) => a.get(k)).find((v) => typeof v === 'number') as number | undefined;
  const start = Number(span.startTimeUnixNano ?? 0);
  const end = Number(span.endTimeUnixNano ?? 0);
  const code = span.status?.code;
  return {
    name: typeof span.name === 'string' ? span.name : '',
    service,
    function: str('code.function', 'code.function.name'),
    namespace: str('code.namespace'),
    filepath: str('code.filepath', 'code.file.path'),
    lineno: num('code.lineno', 'code.line.number'),
    route: str('http.route'),
    method: str('http.request.method', 'http.method')?.toUpperCase(),
    durationMs: end > start ? (end - start) / 1e6 : 0,
    error: code === 2 || code === 'STATUS_CODE_ERROR',
  };
}

/** Time spent reading spans between two turns of the event loop. */
const SLICE_MS = 8;

/** What readSpans found: the span facts (at most MAX_SPANS) and how many spans beyond the cap were dropped. */
export interface ReadSpans {
  spans: SpanFacts[];
  dropped: number;
}

/** The span facts of OTLP JSON objects (exports or bare spans), at most MAX_SPANS; the rest are counted as dropped. */
export async function readSpans(objects: readonly unknown[], pause: Pause = immediate): Promise<ReadSpans> {
  const spans: SpanFacts[] = [];
  let dropped = 0;
  let start = performance.now();
  const take = async (s: RawSpan, service: string) => {
    if (spans.length >= MAX_SPANS) {
      dropped++;
      return;
    }
    spans.push(facts(s, service));
    if (performance.now() - start >= SLICE_MS) {
      await pause();
      start = performance.now();
    }
  };
  for (const o of objects) {
    const obj = o as { resourceSpans?: { resource?: { attributes?: Attr[] }; scopeSpans?: { spans?: RawSpan[] }[]; instrumentationLibrarySpans?: { spans?: RawSpan[] }[] }[] };
    if (Array.isArray(obj?.resourceSpans)) {
      for (const rs of obj.resourceSpans) {
        // Entries of no export shape (null, a number, scopeSpans an object) hold no span: skipped.
        if (!rs || typeof rs !== 'object') continue;
        const service = String(attrs(rs.resource?.attributes).get('service.name') ?? '');
        const scopes = [rs.scopeSpans, rs.instrumentationLibrarySpans].flatMap((x) => (Array.isArray(x) ? x : []));
        for (const ss of scopes) {
          const list = Array.isArray(ss?.spans) ? ss.spans : [];
          // Past the cap, a list is counted, not read.
          if (spans.length >= MAX_SPANS) dropped += list.length;
          else for (const s of list) if (s && typeof s === 'object') await take(s, service);
        }
      }
    } else if (o && typeof o === 'object' && 'name' in (o as object)) {
      await take(o as RawSpan, '');
    }
  }
  return { spans, dropped };
}

/** Main-thread time between yields while parsing a file's lines. */
const PARSE_SLICE_MS = 8;

/**
 * Parses an OTLP JSON file: one object (or array), or one object per line (the file exporter's
 * format), the lines parsed in slices that yield. A single object is parsed at once.
 */
export async function parseOtlpText(text: string, pause: Pause = immediate): Promise<unknown[]> {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const firstEnd = trimmed.indexOf('\n');
  if (firstEnd < 0 || !parsesAlone(trimmed.slice(0, firstEnd))) {
    const one = JSON.parse(trimmed) as unknown;
    return Array.isArray(one) ? one : [one];
  }
  const out: unknown[] = [];
  let start = performance.now();
  for (const [i, line] of trimmed.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as unknown);
    } catch (error) {
      throw new SyntaxError(`line ${i + 1}: ${(error as Error).message}`);
    }
    if (performance.now() - start >= PARSE_SLICE_MS) {
      await pause();
      start = performance.now();
    }
  }
  return out;
}

function parsesAlone(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** Span facts as columns a worker transfers (strings once in a table; -1 or NaN for none). */
export interface PackedSpans {
  count: number;
  dropped: number;
  strings: string[];
  /** name, service, function, namespace, filepath, route, method: string-table indices per span. */
  text: Int32Array;
  lineno: Float64Array;
  durationMs: Float64Array;
  error: Uint8Array;
}

const TEXT_FIELDS = ['name', 'service', 'function', 'namespace', 'filepath', 'route', 'method'] as const;

/** Packs span facts for a transfer: a worker's 200,000 spans reach the main thread as a few buffers. */
export function packSpans(read: ReadSpans): PackedSpans {
  const n = read.spans.length;
  const ids = new Map<string, number>();
  const strings: string[] = [];
  const text = new Int32Array(n * TEXT_FIELDS.length);
  const lineno = new Float64Array(n);
  const durationMs = new Float64Array(n);
  const error = new Uint8Array(n);
  read.spans.forEach((s, i) => {
    TEXT_FIELDS.forEach((f, k) => {
      const v = s[f];
      let id = -1;
      if (v !== undefined) {
        id = ids.get(v) ?? -1;
        if (id < 0) ids.set(v, (id = strings.push(v) - 1));
      }
      text[i * TEXT_FIELDS.length + k] = id;
    });
    lineno[i] = s.lineno ?? NaN;
    durationMs[i] = s.durationMs;
    error[i] = s.error ? 1 : 0;
  });
  return { count: n, dropped: read.dropped, strings, text, lineno, durationMs, error };
}

/** The span facts of a packed transfer, rebuilt in slices. */
export async function unpackSpans(p: PackedSpans, pause: Pause = immediate): Promise<ReadSpans> {
  const spans: SpanFacts[] = [];
  const width = TEXT_FIELDS.length;
  let start = performance.now();
  for (let i = 0; i < p.count; i++) {
    const s: SpanFacts = { name: '', service: '', durationMs: p.durationMs[i], error: p.error[i] === 1 };
    TEXT_FIELDS.forEach((f, k) => {
      const id = p.text[i * width + k];
      if (id >= 0) s[f] = p.strings[id];
    });
    if (!Number.isNaN(p.lineno[i])) s.lineno = p.lineno[i];
    spans.push(s);
    if (performance.now() - start >= SLICE_MS) {
      await pause();
      start = performance.now();
    }
  }
  return { spans, dropped: p.dropped };
}
