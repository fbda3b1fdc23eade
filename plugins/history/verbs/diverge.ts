/** diverge: structural drift between a baseline (git ref or date) and now (or a second ref): files and symbols added, removed, changed; coupling changes; anomalies. */
import { readFile } from 'node:fs/promises';
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { pathScope } from '../../graph/api.ts';
import { historySource, round3, workspaceArg } from '../call.ts';
import { repoPrefix, requireRepo, resolveRef, runGit } from '../git.ts';
import { historyOf } from '../service.ts';
import { diffSymbols, type PreviewSymbol } from '../symbol-diff.ts';

const MAX_FILE_BYTES = 2 * 1024 * 1024;
const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

export const divergeVerb = defineVerb({
  name: 'diverge',
  description: 'Structural drift from a baseline (git ref or YYYY-MM-DD) to now or another ref: files and symbols added/removed/changed, new coupling, anomalies.',
  input: Type.Object({
    agent_id: AgentId,
    baseline: Type.String({ minLength: 1, maxLength: 256, description: 'Git ref (branch, tag, hash, HEAD~5) or a date YYYY-MM-DD' }),
    head: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Compare up to this ref instead of the working tree' })),
    scope: Type.Optional(Type.String({ maxLength: 512, description: 'Only under this workspace path' })),
    include_coupling_changes: Type.Boolean({ default: true }),
    include_anomalies: Type.Boolean({ default: true }),
    max_files: Type.Integer({ minimum: 1, maximum: 2000, default: 200, description: 'Changed files parsed for symbols' }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review'],
  next: 'impact',
  guide: [
    'Files come from `git diff --name-status -M` between the baseline commit and `head` (default: the working tree, tracked files). Each changed file in a parsed language is parsed at both ends; a symbol is `changed` only when its own lines differ (a class whose one method changed lists the method).',
    '`drift` = 1 − Jaccard of the two ends\' tracked files (in scope). `new_coupling`: file pairs committed together at least twice in baseline..head and never in the baseline or its ancestors. `anomalies`: source files with new or changed symbols while no test file changed.',
  ].join('\n'),
  handler: async (args, call) => {
    const history = historyOf(call);
    const engine = await history.graph.requireGraph();
    const scope = pathScope(engine, args.scope ? workspaceArg(history.graph, 'diverge', args.scope) : undefined);
    const root = engine.root;
    requireRepo(root);
    const base = await baselineCommit(root, args.baseline);
    const head = args.head ? await resolveRef(root, args.head) : null;
    const range = head ? [base, head] : [base];
    const diff = await runGit(root, ['diff', '--name-status', '-M', '-z', '--relative', ...range, '--', '.'], { maxBytes: 16 * 1024 * 1024 });
    if (diff.code !== 0) throw new Error(`git diff failed: ${diff.stderr.trim().slice(0, 300)}`);
    const entries = parseNameStatus(diff.stdout).filter((e) => scope.has(e.path) || (e.from !== undefined && scope.has(e.from)));
    const files = { added: [] as string[], removed: [] as string[], modified: [] as string[], renamed: [] as { from: string; to: string }[] };
    const symbols = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
    const touchedSymbols = new Set<string>();
    let parsed = 0;
    for (const e of entries) {
      if (e.status === 'A') files.added.push(e.path);
      else if (e.status === 'D') files.removed.push(e.path);
      else if (e.status === 'R') files.renamed.push({ from: e.from!, to: e.path });
      else files.modified.push(e.path);
      if (parsed >= args.max_files) continue;
      const oldPath = e.from ?? e.path;
      const oldText = e.status === 'A' ? null : await show(root, base, oldPath);
      const newText = e.status === 'D' ? null : head ? await show(root, head, e.path) : await readWorkspace(engine.resolvePath(e.path).absolute);
      const oldSyms = oldText !== null ? await history.graph.previewSymbols(oldPath, oldText) : [];
      const newSyms = newText !== null ? await history.graph.previewSymbols(e.path, newText) : [];
      if (oldSyms === null && newSyms === null) continue; // a language the graph does not parse
      parsed++;
      const d = diffSymbols(oldText, (oldSyms ?? []) as PreviewSymbol[], newText, (newSyms ?? []) as PreviewSymbol[]);
      symbols.added.push(...d.added);
      symbols.removed.push(...d.removed);
      symbols.changed.push(...d.changed);
      if (d.added.length || d.changed.length) touchedSymbols.add(e.path);
      await yieldTurn();
    }
    // Both ends as git holds them (the working tree: the baseline's files with the diff applied), in scope.
    const before = new Set([...(await lsTree(root, base))].filter(scope.has));
    const after = head ? new Set([...(await lsTree(root, head))].filter(scope.has)) : new Set(before);
    if (!head) {
      for (const e of entries) {
        if (e.status === 'R') after.delete(e.from!);
        if (e.status === 'D') after.delete(e.path);
        else if (scope.has(e.path)) after.add(e.path);
      }
    }
    let common = 0;
    for (const f of after) if (before.has(f)) common++;
    const union = before.size + after.size - common;
    const out: Record<string, unknown> = {
      baseline: { ref: args.baseline, commit: base.slice(0, 12) },
      head: head ? { ref: args.head, commit: head.slice(0, 12) } : 'working tree',
      drift: round3(union ? 1 - common / union : 0),
      files,
      symbols,
      counts: { files_changed: entries.length, symbols_added: symbols.added.length, symbols_removed: symbols.removed.length, symbols_changed: symbols.changed.length, files_parsed: parsed },
      ...(entries.length > parsed ? { note: `${entries.length - parsed} changed files not parsed for symbols (language not parsed, or over max_files)` } : {}),
    };
    if (args.include_coupling_changes) {
      const { index, mined } = await history.current();
      const inRange = await revList(root, base, head ?? 'HEAD');
      const pairsIn = new Map<string, number>();
      for (const c of index.commits) {
        if (!inRange.has(c.hash) || c.sweep) continue;
        const fs = [...c.files].sort();
        for (let i = 0; i < fs.length; i++) for (let j = i + 1; j < fs.length; j++) pairsIn.set(`${fs[i]}\0${fs[j]}`, (pairsIn.get(`${fs[i]}\0${fs[j]}`) ?? 0) + 1);
      }
      // Before = the baseline and its ancestors (a merge baseline is no mined commit: its time says nothing).
      const ancestors = await revList(root, null, base);
      const togetherBefore = (a: string, b: string) =>
        (index.files.get(a)?.commits ?? []).some((ci) => {
          const c = index.commits[ci];
          return !c.sweep && ancestors.has(c.hash) && c.files.includes(b);
        });
      const fresh = [];
      for (const [key, n] of pairsIn) {
        if (n < 2) continue;
        const [a, b] = key.split('\0');
        if (!togetherBefore(a, b)) fresh.push({ a, b, support: n });
      }
      out.new_coupling = fresh.sort((x, y) => y.support - x.support).slice(0, 30);
      out.source = historySource(mined, index);
    }
    if (args.include_anomalies) {
      const isTest = (p: string) => /(^|\/)(tests?|__tests__|spec)\/|[._-](test|spec)\.[a-z]+$|_test\.go$|(^|\/)test_[^/]+\.py$/.test(p);
      const changedPaths = entries.map((e) => e.path);
      const testsChanged = changedPaths.some(isTest);
      out.anomalies = testsChanged ? [] : [...touchedSymbols].filter((p) => !isTest(p)).map((p) => ({ kind: 'test_deficit', file: p, why: 'new or changed symbols while no test file changed' }));
    }
    return out;
  },
});

/** The commit a baseline names: a date (the last commit before it) or a ref. */
async function baselineCommit(root: string, baseline: string): Promise<string> {
  if (/^\d{4}-\d{2}-\d{2}$/.test(baseline)) {
    const r = await runGit(root, ['rev-list', '-1', `--before=${baseline}T00:00:00Z`, 'HEAD'], { maxBytes: 4096 });
    const sha = r.stdout.trim();
    if (!sha) throw new M1ndError(ErrorCodes.HISTORY_BAD_REF, `no commit before ${baseline}`, { hint: 'give a later date, or a ref such as the first commit\'s hash' });
    return sha;
  }
  return resolveRef(root, baseline);
}

async function show(root: string, commit: string, path: string): Promise<string | null> {
  const r = await runGit(root, ['show', `${commit}:${path}`], { maxBytes: MAX_FILE_BYTES });
  return r.code === 0 && !r.truncated ? r.stdout : null;
}

async function readWorkspace(absolute: string): Promise<string | null> {
  try {
    return await readFile(absolute, 'utf8');
  } catch {
    return null;
  }
}

async function lsTree(root: string, commit: string): Promise<Set<string>> {
  const r = await runGit(root, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit], { maxBytes: 64 * 1024 * 1024 });
  const prefix = await repoPrefix(root);
  return new Set(
    r.stdout
      .split('\0')
      .filter((p) => p && p.startsWith(prefix))
      .map((p) => p.slice(prefix.length)),
  );
}

/** Non-merge commits of base..head, or (base null) every ancestor of head and head itself. */
async function revList(root: string, base: string | null, head: string): Promise<Set<string>> {
  const r = await runGit(root, ['rev-list', '--no-merges', base ? `${base}..${head}` : head], { maxBytes: 64 * 1024 * 1024 });
  return new Set(r.stdout.split('\n').filter(Boolean));
}

/** Parses `git diff --name-status -z`: status, then one path (two for renames and copies). */
function parseNameStatus(out: string): { status: string; path: string; from?: string }[] {
  const t = out.split('\0');
  const rows: { status: string; path: string; from?: string }[] = [];
  for (let i = 0; i < t.length; i++) {
    const status = t[i];
    if (!status) continue;
    const s = status[0];
    if (s === 'R' || s === 'C') {
      rows.push({ status: s === 'C' ? 'A' : 'R', from: t[i + 1], path: t[i + 2] });
      i += 2;
    } else {
      rows.push({ status: s === 'M' || s === 'T' ? 'M' : s, path: t[i + 1] });
      i += 1;
    }
  }
  return rows;
}
