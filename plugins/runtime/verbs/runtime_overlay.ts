/** runtime_overlay: OpenTelemetry spans mapped onto graph nodes — heat, latency percentiles and errors, persisted with decay. */
import { stat } from 'node:fs/promises';
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { MAX_ROUTES_PER_FILE, SliceClock, yieldToLoop, type GraphService } from '../../graph/api.ts';
import { MAX_SPANS, readSpans, type ReadSpans } from '../otlp.ts';
import { OtlpSyntaxError, readOtlpFile } from '../otlp-file.ts';
import { DEFAULT_BOOST_STRENGTH, HEAT_OVERLAY } from '../heat-boosts.ts';
import { decayed, loadOverlay, saveOverlay, SAMPLE } from '../overlay-book.ts';
import { spanRoute, type RouteIndex } from '../route-index.ts';
import { matchesRoutes, spanMapper, type Strategy } from '../span-mapping.ts';

/** Largest OTLP file read. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Main-thread time between yields while spans are mapped. */
const SLICE_MS = 8;
/** Heat half-life of a new overlay (a week). */
const DEFAULT_HALF_LIFE_HOURS = 168;
/** What a valid call posts, for errors about input that holds no span. */
const VALID_EXPORT = '{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shop"}}]},"scopeSpans":[{"spans":[{"name":"checkout","startTimeUnixNano":"0","endTimeUnixNano":"5000000","attributes":[{"key":"code.function","value":{"stringValue":"checkout"}}]}]}]}]}';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** What the answer says of the routes read: registrations, files, and those left out past the per-file cap (not dropped silently). */
function routesReport(r: RouteIndex) {
  return {
    registered: [...r.byKey.values()].reduce((a, l) => a + l.length, 0),
    files_scanned: r.filesScanned,
    ...(r.filesSkipped ? { files_skipped: r.filesSkipped } : {}),
    ...(r.routesCut ? { cut: r.routesCut, cut_files: r.filesCut, hint: `only a file's first ${MAX_ROUTES_PER_FILE} routes are read; spans of the rest map by code.* attributes or name only` } : {}),
  };
}

export const runtimeOverlayVerb = defineVerb({
  name: 'runtime_overlay',
  description: 'Map OpenTelemetry spans (OTLP JSON, posted or a workspace file) onto graph nodes: heat, latency p50/p95/p99, errors; persisted with decay; seek/activate/panoramic use it with runtime_heat: true.',
  input: Type.Object({
    agent_id: AgentId,
    spans: Type.Union([Type.Array(Type.Unknown(), { maxItems: 1000 }), Type.Object({}, { additionalProperties: true })], { default: [], description: 'OTLP JSON export objects ({resourceSpans}) or span objects; one object alone too' }),
    path: Type.Optional(Type.String({ minLength: 1, description: 'A workspace OTLP JSON file (collector file exporter: one object per line)' })),
    service_name: Type.String({ maxLength: 200, default: '', description: 'Only spans of this service.name' }),
    mapping_strategy: StringEnum(['auto', 'code_attributes', 'label_match'], { default: 'auto', description: 'code_attributes: code.* only; label_match: routes and span names only' }),
    boost_strength: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Boost of the hottest node when ranking asks for runtime_heat; kept with the overlay (new: 0.15; 0: off)' })),
    scope: StringEnum(['workspace', 'agent'], { default: 'workspace', description: "Whose overlay the spans add to: the workspace's (a write) or this agent's (session)" }),
    half_life_hours: Type.Optional(Type.Number({ minimum: 0.01, maximum: 24 * 365, description: 'Heat halves over this time; kept with the overlay (new: 168)' })),
    top_k: Type.Integer({ minimum: 1, maximum: 200, default: 15 }),
  }, { examples: [{ agent_id: 'my-agent', spans: [{ name: 'checkout' }] }] }),
  output: Type.Object({
    spans: Type.Number(),
    mapped: Type.Number(),
    via: Type.Object({}),
    unmapped: Type.Array(Type.Object({})),
    nodes_touched: Type.Number(),
    hot: Type.Array(Type.Object({})),
    overlay: Type.String(),
    stored: Type.Boolean(),
    half_life_hours: Type.Number(),
    boost_strength: Type.Number(),
    boosted: Type.Number(),
  }),
  tiers: ['full'],
  // Adding to the shared workspace overlay is ingesting (write). An agent's own overlay is that
  // agent's state (session): stored on a writable server, kept in session memory on a read-only one.
  effect: (args) => (args.scope === 'agent' ? 'session' : 'write'),
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const engine = await graph.requireGraph();
    const objects: unknown[] = Array.isArray(args.spans) ? [...args.spans] : [args.spans];
    let fromFile: ReadSpans | undefined;
    if (args.path) {
      const file = graph.run(() => engine.resolvePath(args.path!));
      const info = await stat(file.absolute).catch(() => null);
      if (!info?.isFile()) throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `${args.path} is not a file`, { hint: 'pass the workspace path of an OTLP JSON export' });
      if (info.size > MAX_FILE_BYTES) throw new M1ndError(ErrorCodes.CALL_INPUT_TOO_LARGE, `${args.path} is ${info.size} bytes; up to ${MAX_FILE_BYTES} are read`, { hint: 'rotate the exporter file or pass a slice of it' });
      try {
        fromFile = await readOtlpFile(file.absolute, info.size);
      } catch (error) {
        if (!(error instanceof OtlpSyntaxError)) throw error;
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${args.path} is not OTLP JSON: ${error.message}`, { hint: 'export with the collector file exporter (format: json), or post the spans' });
      }
    }
    if (objects.length === 0 && !fromFile) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'no spans given', { hint: `pass spans (OTLP JSON objects, e.g. ${VALID_EXPORT}) or path (an OTLP JSON file in the workspace)` });
    let read = await readSpans(objects, yieldToLoop);
    const clock = new SliceClock(SLICE_MS);
    // The file's spans after the posted ones, under the same cap (taken as they are when nothing was posted).
    if (fromFile && read.spans.length === 0) read = fromFile;
    else if (fromFile) {
      const room = Math.max(0, MAX_SPANS - read.spans.length);
      for (const s of fromFile.spans.slice(0, room)) {
        if (clock.spent()) await clock.yield();
        read.spans.push(s);
      }
      read.dropped += fromFile.dropped + Math.max(0, fromFile.spans.length - room);
    }
    if (read.spans.length === 0) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `no OpenTelemetry span in the ${args.path ? `file ${args.path}` : 'posted spans'}: nothing was added`, {
        hint: `pass OTLP JSON: export objects {resourceSpans:[{scopeSpans:[{spans:[…]}]}]} or span objects with a name, e.g. ${VALID_EXPORT}`,
      });
    }
    const spans = args.service_name ? read.spans.filter((s) => s.service === args.service_name) : read.spans;
    if (spans.length === 0) {
      const services = new Map<string, number>();
      for (const s of read.spans) services.set(s.service, (services.get(s.service) ?? 0) + 1);
      const listed = [...services].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([name, n]) => `${name === '' ? '(no service.name)' : name} (${n})`).join(', ');
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `no span has service.name ${JSON.stringify(args.service_name)}: nothing was added; the spans' services: ${listed}`, {
        hint: 'pass service_name as one of those services, or leave it out for all spans',
      });
    }
    const strategy = args.mapping_strategy as Strategy;
    // Routes are read only when a span has one (a regex per span name: 200,000 of them in one go held the loop ~20 ms).
    let withRoutes = false;
    for (const s of matchesRoutes(strategy) ? spans : []) {
      if (clock.spent()) await clock.yield();
      if ((withRoutes = spanRoute(s) !== null)) break;
    }
    const mapper = await spanMapper(engine, strategy, withRoutes);
    const key = args.scope === 'agent' ? `agent:${call.agentId}` : 'workspace';
    const place = { graph, session: call.session };
    const overlay = loadOverlay(place, key, args.half_life_hours ?? DEFAULT_HALF_LIFE_HOURS);
    // Settings persist with the overlay: only a call that passes one changes it.
    if (args.half_life_hours !== undefined) overlay.half_life_hours = args.half_life_hours;
    if (args.boost_strength !== undefined) overlay.boost_strength = args.boost_strength;
    const strength = overlay.boost_strength ?? DEFAULT_BOOST_STRENGTH;
    const now = Date.now();
    const touched = new Set<string>();
    const via: Record<string, number> = {};
    const unmapped = new Map<string, number>();
    for (const s of spans) {
      if (clock.spent()) await clock.yield();
      const m = mapper.map(s);
      if (!m.node) {
        unmapped.set(m.reason, (unmapped.get(m.reason) ?? 0) + 1);
        continue;
      }
      via[m.via] = (via[m.via] ?? 0) + 1;
      const id = m.node.id;
      const h = overlay.nodes[id] ?? { spans: 0, errors: 0, heat: 0, at: now, durations: [] };
      h.heat = decayed(h, now, overlay.half_life_hours) + 1;
      h.at = now;
      h.spans++;
      if (s.error) h.errors++;
      h.durations.push(Math.round(s.durationMs * 1000) / 1000);
      // The last SAMPLE durations are kept: trimmed when twice as many (one shift per span cost O(SAMPLE)), and at the end.
      if (h.durations.length >= 2 * SAMPLE) h.durations.splice(0, h.durations.length - SAMPLE);
      overlay.nodes[id] = h;
      touched.add(id);
    }
    for (const id of touched) {
      const d = overlay.nodes[id].durations;
      if (d.length > SAMPLE) d.splice(0, d.length - SAMPLE);
    }
    const hot = Object.entries(overlay.nodes)
      .map(([id, h]) => ({ id, h, heat: decayed(h, now, overlay.half_life_hours) }))
      .sort((a, b) => b.heat - a.heat || a.id.localeCompare(b.id));
    const kept = saveOverlay(place, key, overlay);
    return {
      spans: spans.length,
      mapped: spans.length - [...unmapped.values()].reduce((a, b) => a + b, 0),
      via,
      unmapped: [...unmapped.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([reason, count]) => ({ reason, count })),
      nodes_touched: touched.size,
      hot: hot.slice(0, args.top_k).map(({ id, h, heat }) => {
        const d = [...h.durations].sort((a, b) => a - b);
        return { id, heat: Math.round(heat * 1000) / 1000, spans: h.spans, errors: h.errors, error_rate: Math.round((h.errors / h.spans) * 1000) / 1000, p50_ms: percentile(d, 50), p95_ms: percentile(d, 95), p99_ms: percentile(d, 99) };
      }),
      overlay: key,
      stored: kept === 'store',
      ...(kept === 'session' ? { kept: 'session (read-only server)' } : {}),
      ...(read.dropped ? { truncated: true, dropped: read.dropped, note: `only the first ${MAX_SPANS} spans were read; ${read.dropped} more were dropped (pass the rest in another call)` } : {}),
      ...(mapper.routes ? { routes: routesReport(mapper.routes) } : {}),
      half_life_hours: overlay.half_life_hours,
      boost_strength: strength,
      // Ranking verbs apply the heat only when asked.
      boosted: strength > 0 ? Math.min(hot.length, 200) : 0,
      boost: strength > 0 ? `seek, activate and panoramic with ${HEAT_OVERLAY}: true rank these nodes up (hottest +${strength})` : 'none (boost_strength 0)',
    };
  },
});
