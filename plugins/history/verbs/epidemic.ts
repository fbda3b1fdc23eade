/** epidemic: which files linked to known-buggy ones most likely hide further bugs (expected-value SIR over the file graph), with paths and R0. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { pathScope } from '../../graph/api.ts';
import { round3, workspaceArg } from '../call.ts';
import { noHistory as whyNoHistory } from '../git.ts';
import { defectAnchor, defectRecord, eventsByFile, learnEvents } from '../defects.ts';
import { COUPLING, calibrateFromFixes, fileGraph, infectionPath, runSir, type Calibration } from '../epidemic-model.ts';
import type { HistoryIndex } from '../history-index.ts';
import { historyOf } from '../service.ts';

const DEFAULT_BETA = 0.3;
const MAX_FIX_SEEDS = 50;

/** The epidemic verb, with the fix pattern the plugin is configured with. */
export function epidemicVerb(fixPattern: string) {
  const fix = new RegExp(fixPattern, 'i');
  return defineVerb({
    name: 'epidemic',
    description: 'Which files linked to known-buggy ones most likely hide further bugs: expected-value SIR over the file graph (relation-specific transmission), with paths and an R0 estimate.',
    input: Type.Object({
      agent_id: AgentId,
      infected_nodes: Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 200, description: 'Known-buggy nodes or files (a symbol stands for its file)' }),
      recovered_nodes: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 200, description: 'Files known clean: never infected, never transmit' })),
      infection_rate: Type.Optional(Type.Number({ minimum: 0.001, maximum: 1, description: 'β; default: calibrated from git fixes (auto_calibrate) or 0.3' })),
      recovery_rate: Type.Number({ minimum: 0, maximum: 1, default: 0.5, description: 'γ: share of infection that recovers per step' }),
      iterations: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
      direction: StringEnum(['both', 'forward', 'backward'] as const, { default: 'both', description: 'forward: to dependents (callers, importers); backward: to dependencies' }),
      top_k: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
      auto_calibrate: Type.Boolean({ default: true, description: 'Derive β from how often fixes followed along links in git history' }),
      scope: Type.String({ default: 'all', maxLength: 512, description: 'all, or a workspace path: report the files under it' }),
      min_probability: Type.Number({ minimum: 0, maximum: 1, default: 0.001 }),
      seed_from_fixes: Type.Boolean({ default: false, description: `Also seed the ${MAX_FIX_SEEDS} files with the highest defect density (fix commits, learn outcomes), at that density` }),
    }),
    output: Type.Object({
      seeds: Type.Array(Type.Object({ file: Type.String(), probability: Type.Number() })),
      at_risk_count: Type.Number(),
      at_risk: Type.Array(Type.Object({ file: Type.String(), probability: Type.Number(), path: Type.Array(Type.Unknown()) })),
      r0: Type.Object({ value: Type.Number(), first_step: Type.Number(), infectious_period: Type.Number() }),
      model: Type.Object({ beta: Type.Number(), beta_source: Type.String(), gamma: Type.Number(), direction: Type.String(), iterations_run: Type.Number(), stopped: Type.String(), files: Type.Number() }),
      calibration: Type.Optional(Type.Object({ fix_commits: Type.Number(), opportunities: Type.Number(), followed_by_fix: Type.Number(), linked_rate: Type.Number(), base_rate: Type.Number(), lift: Type.Union([Type.Number(), Type.Null()]), window_days: Type.Number() })),
      note: Type.Optional(Type.String()),
    }),
    tiers: ['full'],
    effect: 'read',
    stages: ['review', 'plan'],
    next: 'trust',
    guide: [
      'Units are files. Two files are linked when nodes of one have edges to nodes of the other; the link transmits τ = coupling(relation) × edge weight of its strongest edge, coupling: ' +
        Object.entries(COUPLING)
          .map(([r, c]) => `${r} ${c}`)
          .join(', ') +
        '. Directory containment is not a link.',
      '- Each step an infected file passes p = β × τ × P(infected) along each link (forward: to files that use it; backward: to what it uses), combined per file as 1 − ∏(1 − p) and applied to its susceptible share; γ of the infected share recovers. Stops at `iterations`, or when no infection is left (extinct) or none is added (converged).',
      '- β: `infection_rate`, else (auto_calibrate) from git — P = how often a file linked to a fixed file got its own fix commit within 90 days, solved for β over the infectious period 1/γ; else 0.3. The calibration shows the lift over the base rate of any file getting a fix.',
      '- `probability`: P(ever infected). `path`: the strongest chain of transmissions from a seed. `r0` = expected files infected by one seed in the first step × infectious period (min(1/γ, iterations)); above 1 a bug tends to spread.',
      '- Seeds: the files of `infected_nodes` (probability 1), plus with `seed_from_fixes` the files with fix commits / wrong learn outcomes at their defect density. Seed files are not reported.',
    ].join('\n'),
    handler: async (args, call) => {
      const history = historyOf(call);
      const graph = history.graph;
      const engine = await graph.requireGraph();
      const fg = await fileGraph(engine.graph);
      const fileSlot = (text: string, what: string) => {
        const node = graph.node(workspaceArg(graph, 'epidemic', text));
        const s = fg.slot.get(node.path);
        if (s === undefined) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${what} "${text}" is a directory, not a file or symbol`, { hint: 'name files or symbols (e.g. "src/a.ts" or "function:src/a.ts#f")' });
        return s;
      };
      const seeds = new Map<number, number>();
      for (const t of args.infected_nodes) seeds.set(fileSlot(t, 'infected node'), 1);
      const immune = new Set<number>();
      for (const t of args.recovered_nodes ?? []) immune.add(fileSlot(t, 'recovered node'));
      for (const s of immune) seeds.delete(s);

      let index: HistoryIndex | null = null;
      let noHistory: string | null = null;
      try {
        const current = await history.current();
        index = current.index;
        if (index.commits.length === 0) (index = null), (noHistory = (await whyNoHistory(engine.root, current.mined.head)).message);
      } catch (error) {
        if ((error as M1ndError).code !== ErrorCodes.HISTORY_NO_GIT) throw error;
        noHistory = (error as M1ndError).message;
      }
      if (args.seed_from_fixes) {
        if (!index) throw new M1ndError(ErrorCodes.HISTORY_NO_GIT, `seed_from_fixes needs git history: ${noHistory ?? 'the repository has no commits'}`, { hint: 'name the buggy files in infected_nodes instead' });
        const learn = learnEvents(graph, args.agent_id);
        const learnOf = eventsByFile(learn);
        const anchor = defectAnchor(index, learn);
        const ranked: [number, number][] = [];
        for (const [file, s] of fg.slot) {
          if (immune.has(s) || seeds.has(s)) continue;
          const rec = defectRecord(index, file, fix, learnOf.get(file) ?? [], anchor, 30 * 86_400);
          if (rec.density > 0) ranked.push([s, rec.density]);
        }
        ranked.sort((a, b) => b[1] - a[1]);
        for (const [s, d] of ranked.slice(0, MAX_FIX_SEEDS)) seeds.set(s, d);
      }
      if (seeds.size === 0) {
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'no infected file to start from', { hint: args.seed_from_fixes ? 'no file has fix commits: name the buggy files in infected_nodes' : 'name known-buggy files or symbols in infected_nodes, or set seed_from_fixes' });
      }

      let beta = args.infection_rate ?? DEFAULT_BETA;
      let betaSource = args.infection_rate !== undefined ? 'infection_rate' : 'default';
      let calibration: Calibration | null = null;
      const period = args.recovery_rate > 0 ? Math.min(1 / args.recovery_rate, args.iterations) : args.iterations;
      if (args.infection_rate === undefined && args.auto_calibrate && index) {
        const fixes = index.commits.filter((c) => !c.sweep && fix.test(c.subject)).slice(-2000);
        // The base rate's population is the hits' own: files of the graph with history (not every path git ever held).
        const withHistory = fg.paths.reduce((n, p) => n + (index!.files.has(p) ? 1 : 0), 0);
        calibration = await calibrateFromFixes(fg, fixes, withHistory, args.direction);
        if (calibration) {
          let sum = 0;
          let n = 0;
          for (const links of [fg.dependents, fg.dependencies]) for (const l of links.flat()) (sum += l.tau), n++;
          const meanTau = n ? sum / n : 0.5;
          const perStep = 1 - Math.pow(1 - calibration.linked_rate, 1 / period);
          beta = Math.min(1, Math.max(0.01, perStep / meanTau));
          betaSource = 'calibrated from git fix history';
        }
      }

      const sir = await runSir(fg, seeds, immune, { beta, gamma: args.recovery_rate, iterations: args.iterations, direction: args.direction });
      const inScope = args.scope === 'all' ? () => true : pathScope(engine, args.scope).has;
      const rows: { file: string; probability: number; path: string[] }[] = [];
      for (let v = 0; v < fg.paths.length; v++) {
        if (seeds.has(v) || immune.has(v) || sir.ever[v] < args.min_probability || sir.ever[v] <= 0 || !inScope(fg.paths[v])) continue;
        rows.push({ file: fg.paths[v], probability: sir.ever[v], path: [] });
      }
      rows.sort((a, b) => b.probability - a.probability || (a.file < b.file ? -1 : 1));
      const top = rows.slice(0, args.top_k).map((r) => ({ ...r, probability: round3(r.probability), path: infectionPath(fg, sir, seeds, fg.slot.get(r.file)!) }));
      return {
        seeds: [...seeds].map(([s, p]) => ({ file: fg.paths[s], probability: round3(p) })).slice(0, 60),
        at_risk_count: rows.length,
        at_risk: top,
        r0: { value: round3(sir.firstGeneration * period), first_step: round3(sir.firstGeneration), infectious_period: round3(period) },
        model: { beta: round3(beta), beta_source: betaSource, gamma: args.recovery_rate, direction: args.direction, iterations_run: sir.iterations, stopped: sir.stopped, files: fg.paths.length },
        ...(calibration ? { calibration: { ...calibration, linked_rate: round3(calibration.linked_rate), base_rate: round3(calibration.base_rate), lift: calibration.lift === null ? null : round3(calibration.lift) } } : {}),
        ...(args.auto_calibrate && args.infection_rate === undefined && !calibration ? { note: index ? 'too little fix history to calibrate β (fewer than 10 linked files after fix commits): the default 0.3 is used' : `no git history (${noHistory ?? 'no commits'}): the default β 0.3 is used` } : {}),
      };
    },
  });
}
