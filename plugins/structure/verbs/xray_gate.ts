/** xray_gate: before an edit, a file's existing and planned imports judged against the layer manifest → clear, caution or blocked. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { dirOf, engineCall, type CodeGraphEngine, type GraphService } from '../../graph/api.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { typeOnlyImportsOf } from '../unit-graph.ts';
import { conformance } from '../xray/conformance.ts';
import { judge, layerOf, loadManifest, type ManifestInput } from '../xray/manifest.ts';
import { ManifestParams } from './xray_orient.ts';

const EXTENSIONS = ['', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.py', '.go', '.rs', '.java', '/index.ts', '/index.js', '/__init__.py'];

/** Dotted module names: Python `pkg.mod`, Java `com.acme.Store`. */
const DOTTED = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
/** Python relative modules: `._config`, `..pkg.mod`. */
const PY_RELATIVE = /^(\.+)([A-Za-z_][\w.]*)?$/;

/**
 * A planned import as a workspace file path: a workspace path, a relative specifier (`./x` from the
 * file's folder, Python `._x`), a dotted module, or a node id or name. `known` is false when it
 * names no file of the graph (a file the edit will create, or a typo): then it is judged by its path.
 */
function plannedPath(graph: GraphService, engine: CodeGraphEngine, from: string, text: string): { path: string; known: boolean } {
  const g = engine.graph;
  const fileWith = (base: string) => EXTENSIONS.map((ext) => base + ext).find((p) => p !== '' && g.get(`file:${p}`) !== null);
  const py = PY_RELATIVE.exec(text);
  if (text.startsWith('./') || text.startsWith('../') || (py && from.endsWith('.py'))) {
    let spec = text;
    if (py && !text.startsWith('./') && !text.startsWith('../')) spec = `${'../'.repeat(py[1].length - 1) || './'}${(py[2] ?? '').replace(/\./g, '/')}`;
    const joined = normalise(`${dirOf(from)}/${spec}`);
    if (joined === null) throw new M1ndError(ErrorCodes.PATH_ESCAPE, `planned import "${text}" leaves the workspace`, { hint: 'name a file inside the workspace' });
    const hit = fileWith(joined);
    return hit ? { path: hit, known: true } : { path: engineCall(() => engine.resolvePath(joined)).relative, known: false };
  }
  const direct = fileWith(text);
  if (direct) return { path: direct, known: true };
  if (DOTTED.test(text)) {
    // pkg/mod.py at the root, or the one file whose path ends with com/acme/Store.<ext> (a source root in between).
    const slashed = text.replace(/\./g, '/');
    const rooted = fileWith(slashed);
    if (rooted) return { path: rooted, known: true };
    const ends = new Set(EXTENSIONS.filter((e) => e !== '').map((e) => `/${slashed}${e}`));
    const found: string[] = [];
    for (const [, n] of g.nodes()) if (n.kind === 'file' && [...ends].some((e) => n.path.endsWith(e))) found.push(n.path);
    if (found.length === 1) return { path: found[0], known: true };
  }
  if (text.includes(':') || !text.includes('/')) {
    try {
      return { path: graph.node(text).path, known: true };
    } catch {
      // not a node: taken as a path below
    }
  }
  return { path: engineCall(() => engine.resolvePath(text)).relative, known: false };
}

/** Folds `.` and `..` segments; null when the path climbs above the root. */
function normalise(path: string): string | null {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

export function xrayGateVerb(configured: ManifestInput | undefined) {
  return defineVerb({
    name: 'xray_gate',
    description: "Before an edit: judge a file's existing and planned imports against the layer manifest → clear, caution or blocked, with reasons.",
    input: Type.Object({
      agent_id: AgentId,
      node: Type.String({ maxLength: 1024, description: 'File path or node id about to change' }),
      planned_imports: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 64, default: [], description: 'Files/modules the edit will import (paths, ./relative specifiers, dotted modules or node ids)' })),
      ...ManifestParams,
      time_budget_ms: timeBudgetParam(10_000),
    }),
    output: Type.Object({
      node: Type.String(),
      file: Type.String(),
      layer: Type.Union([Type.String(), Type.Null()]),
      manifest: Type.String(),
      verdict: Type.String(),
      reasons: Type.Array(Type.Object({ import: Type.String(), source: Type.String(), kind: Type.String(), why: Type.String() })),
      note: Type.Optional(Type.String()),
      next: Type.String(),
      time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
    }),
    tiers: ['full'],
    effect: 'read',
    stages: ['edit'],
    next: 'xray_orient',
    guide:
      'blocked: a planned import is forbidden by the manifest or reaches a layer above the file. caution: a planned import skips layers (allow_skip false) or lands outside every layer, or the file already breaks the manifest or sits in a dependency cycle. clear otherwise. Existing violations alone never block: they are erosion to fix, not this edit\'s fault.',
    handler: async (args, call) => {
      const { graph, engine } = await structureCall(call);
      const manifest = loadManifest(engine, args, configured);
      const node = graph.node(args.node);
      const file = node.path;
      const deadline = new Deadline(args.time_budget_ms ?? 10_000, call.signal);
      const c = await conformance(engine.graph, manifest, () => true, '', deadline, typeOnlyImportsOf(engine));
      const li = layerOf(manifest, file);
      const reasons: { import: string; source: 'planned' | 'existing' | 'cycle'; kind: string; why: string }[] = [];
      for (const text of args.planned_imports ?? []) {
        const target = plannedPath(graph, engine, file, text);
        const v = judge(manifest, file, target.path);
        const why = target.known ? v.why : `${v.why} (no file "${text}" in the graph: judged as the new path ${target.path}; name an existing file by workspace path, ./relative specifier, dotted module or node id)`;
        reasons.push({ import: target.path, source: 'planned', kind: v.kind, why });
      }
      const existing = c.violations.filter((v) => v.from === file);
      for (const v of existing) reasons.push({ import: v.to, source: 'existing', kind: v.kind, why: v.why });
      const cycle = c.cycles.find((x) => x.members.includes(file));
      if (cycle) reasons.push({ import: cycle.members.filter((m) => m !== file).slice(0, 5).join(', '), source: 'cycle', kind: 'cycle', why: `${file} is in a dependency cycle of ${cycle.members.length} files${cycle.layers.length > 1 ? ` across layers ${cycle.layers.join(', ')}` : ''}` });
      const planned = reasons.filter((r) => r.source === 'planned');
      const blocked = planned.some((r) => r.kind === 'forbidden' || r.kind === 'upward');
      const caution = !blocked && (planned.some((r) => r.kind === 'skip' || r.kind === 'unmapped') || existing.length > 0 || cycle !== undefined || li < 0);
      const verdict = blocked ? 'blocked' : caution ? 'caution' : 'clear';
      const shown = reasons.filter((r) => r.kind !== 'allowed' || r.source === 'planned');
      return {
        node: node.id,
        file,
        layer: li < 0 ? null : manifest.layers[li].name,
        manifest: manifest.source,
        verdict,
        reasons: shown,
        ...(li < 0 ? { note: `${file} is in no layer of the manifest` } : {}),
        next: blocked ? 'import through a layer below, or change the manifest (a team decision) first' : verdict === 'caution' ? 'go ahead carefully; xray_orient lists the erosion around this file' : 'go ahead',
        time: deadline.report('the conformance check is partial'),
      };
    },
  });
}
