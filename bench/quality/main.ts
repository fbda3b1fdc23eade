/**
 * The quality benchmark: for each repository of repos.json, extract its commit, ingest it with m1nd
 * through a real MCP client, then score (1) callers at depth 1 against the committed ground truth
 * (truth/<id>.json, or recomputed with --recompute-truth when the toolchains are present) and
 * (2) retrieval of questions/<id>.json with seek and activate against a ripgrep baseline.
 * Prints a table and writes the results as JSON (bench/quality/results.json, or M1ND_QUALITY_OUT).
 *
 *   npm run bench:quality [-- --recompute-truth] [-- --only kysely,httpx] [-- --sample 150] [-- --typo-seed 17]
 * Callees are every function and method outside test files (callers are counted anywhere).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHost } from '../../core/index.ts';
import { createLogger } from '../../core/log.ts';
import type { GraphService } from '../../plugins/graph/service.ts';
import { sampleDeclarations, scoreCallers, type CallerScore, type CallVerb, type Recalled } from './callers.ts';
import { benchRepos, extractRepo, howToProvide, mirrorOf, QUALITY_DIR, reposDir, type BenchRepo } from './repos.ts';
import { rankQuestions, ripgrepVersion, summarize, type Question } from './retrieval.ts';
import { addConfusion, precisionRecall, type Confusion } from './scoring.ts';
import type { TruthFile } from './truth-format.ts';
import { writeTruth } from './truth.ts';
import { scoreTypos, type TypoScore } from './typos.ts';

const AGENT = 'quality-bench';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** A host serving `root` and a Client connected to it over InMemoryTransport. */
async function connectTo(root: string) {
  const host = await startHost({ workspaceRoot: root, env: {}, log: createLogger(() => {}) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await host.connect(serverSide);
  const client = new Client({ name: AGENT, version: '0.0.0' });
  await client.connect(clientSide);
  const call: CallVerb = async (name, args) => {
    const result = (await client.callTool({ name, arguments: { agent_id: AGENT, ...args } }, undefined, { timeout: 30 * 60_000 })) as CallToolResult;
    const text = result.content?.[0]?.type === 'text' ? result.content[0].text : '';
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // a plain-text answer stays text
    }
    return { isError: result.isError === true, json };
  };
  const service = host.current.services.get('graph')!.impl as GraphService;
  return { call, service, close: async () => (await client.close(), await host.close()) };
}

const f3 = (x: number): string => x.toFixed(3);
/** Typo'd names asked per form and repository (bench/quality/typos.ts). */
const TYPOS_PER_FORM = 40;
const pct = (x: number): string => x.toFixed(2);

/** Runs the benchmark over every repository whose mirror is present. */
export async function run(): Promise<void> {
  const only = option('--only')?.split(',');
  // Every declaration by default (a few ms each); --sample N draws a seeded sample of N per kind.
  const perKind = Number(option('--sample') ?? process.env.M1ND_QUALITY_SAMPLE ?? Infinity);
  const repos = benchRepos().filter((r) => !only || only.includes(r.id));
  const missing = repos.filter((r) => !mirrorOf(r));
  if (missing.length === repos.length) {
    console.log(howToProvide(missing));
    return;
  }
  if (missing.length) console.log(howToProvide(missing).split('\n')[0].replace('skipped', 'partly skipped'));
  if (process.argv.includes('--recompute-truth')) await writeTruth(repos.filter((r) => !missing.includes(r)).map((r) => r.id));
  const rg = ripgrepVersion();
  console.log(`quality: repos from ${reposDir()}; baseline ${rg ?? 'plain JS scan (ripgrep not installed)'}; ${Number.isFinite(perKind) ? `seeded sample of ≤ ${perKind} declarations per kind` : 'every declaration outside test files'}`);

  const results: unknown[] = [];
  const callerRows: string[] = [];
  const retrievalRows: string[] = [];
  const byLanguage = new Map<string, Record<string, Confusion>>();
  const typoRows: string[] = [];
  const typoTotals = new Map<string, TypoScore>();
  for (const r of repos.filter((x) => !missing.includes(x))) {
    const truth = JSON.parse(fs.readFileSync(path.join(QUALITY_DIR, 'truth', `${r.id}.json`), 'utf8')) as TruthFile;
    if (truth.commit !== r.commit) throw new Error(`truth/${r.id}.json is for ${truth.commit}, repos.json says ${r.commit}: regenerate it (--recompute-truth)`);
    const questions = (JSON.parse(fs.readFileSync(path.join(QUALITY_DIR, 'questions', `${r.id}.json`), 'utf8')) as { questions: Question[] }).questions;
    const root = extractRepo(r, mirrorOf(r)!);
    const h = await connectTo(root);
    try {
      const t0 = performance.now();
      const ingest = await h.call('ingest', { path: root });
      if (ingest.isError) throw new Error(`ingest of ${r.id} failed: ${JSON.stringify(ingest.json).slice(0, 400)}`);
      const ingestMs = performance.now() - t0;
      const engine = await h.service.requireGraph();
      const t1 = performance.now();
      const sample = sampleDeclarations(truth.declarations, perKind, 9);
      const callers = await scoreCallers(h.call, engine, sample);
      const callersMs = performance.now() - t1;
      const t2 = performance.now();
      const retrieval = await rankQuestions(h.call, engine, root, questions, rg !== null);
      const retrievalMs = performance.now() - t2;
      const t3 = performance.now();
      const typos = await scoreTypos(h.call, engine, TYPOS_PER_FORM, Number(option('--typo-seed') ?? 17));
      const typosMs = performance.now() - t3;
      for (const s of typos.scores) {
        const all = typoTotals.get(s.form) ?? { form: s.form, asked: 0, hit1: 0, hit3: 0 };
        typoTotals.set(s.form, { form: s.form, asked: all.asked + s.asked, hit1: all.hit1 + s.hit1, hit3: all.hit3 + s.hit3 });
      }
      typoRows.push(`| ${r.id} | ${typos.scores.map((s) => `${s.asked ? pct(s.hit1 / s.asked) : '—'} / ${s.asked ? pct(s.hit3 / s.asked) : '—'} (${s.asked})`).join(' | ')} |`);
      const lang = byLanguage.get(r.language) ?? {};
      byLanguage.set(r.language, lang);
      for (const s of callers.scores) lang[s.kind] = addConfusion(lang[s.kind] ?? { tp: 0, fp: 0, fn: 0 }, s.confusion);
      callerRows.push(...callerLines(r, callers.scores));
      const summaries = retrieval.rankers.map(summarize);
      for (const s of summaries) {
        const sym = s.symbol ? `${pct(s.symbol.hit1)} / ${pct(s.symbol.hit5)} / ${pct(s.symbol.mrr)}` : '—';
        retrievalRows.push(`| ${r.id} | ${s.ranker} | ${s.file.n} | ${sym} | ${pct(s.file.hit1)} / ${pct(s.file.hit5)} / ${pct(s.file.mrr)} |`);
      }
      results.push({
        repo: r.repo,
        commit: r.commit,
        language: r.language,
        truthTool: truth.tool,
        ingest: { ms: Math.round(ingestMs), summary: summaryOf(ingest.json) },
        callers: { ms: Math.round(callersMs), fallbacksToGraph: callers.fallbacks, verbGraphDisagreements: callers.verbGraphDisagreements, byKind: callers.scores.map((s) => ({ ...s, ...precisionRecall(s.confusion) })), misses: callers.misses },
        retrieval: { ms: Math.round(retrievalMs), summaries, perQuestion: retrieval.perQuestion },
        typos: { ms: Math.round(typosMs), scores: typos.scores, misses: typos.misses },
      });
      const parseErrors = (ingest.json as any)?.parseErrors;
      console.log(`quality ${r.id}: ingest ${(ingestMs / 1000).toFixed(1)} s (${parseErrors ? `${Array.isArray(parseErrors.files) ? parseErrors.files.length : parseErrors.files} files with parse errors` : 'parse errors not reported'}), callers ${(callersMs / 1000).toFixed(1)} s (${sample.length} declarations; impact and the graph's call in-edges differ on ${callers.verbGraphDisagreements}, verb errors ${callers.fallbacks}), retrieval ${(retrievalMs / 1000).toFixed(1)} s (${questions.length} questions), typos ${(typosMs / 1000).toFixed(1)} s`);
    } finally {
      await h.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }

  console.log('\nCallers at depth 1 (impact reverse, max_depth 1) vs ground truth, micro-averaged');
  console.log('| repo | kind | declarations (unmapped, with callers) | true callers (missed with no m1nd node) | m1nd callers | precision | recall | recall, direct calls only | recall, direct + reachable dispatch |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of callerRows) console.log(row);
  for (const [language, kinds] of byLanguage) {
    const all = Object.values(kinds).reduce(addConfusion, { tp: 0, fp: 0, fn: 0 });
    const parts = [...Object.entries(kinds), ['all', all] as const].map(([k, c]) => {
      const pr = precisionRecall(c);
      return `${k} ${f3(pr.precision)} / ${f3(pr.recall)}`;
    });
    console.log(`| ${language} | precision / recall: ${parts.join('; ')} |`);
  }
  console.log('\nRetrieval: hit@1 / hit@5 / MRR (symbol level: the expected function or method; file level: its file)');
  console.log('| repo | ranker | questions | symbol | file |');
  console.log('|---|---|---|---|---|');
  for (const row of retrievalRows) console.log(row);
  console.log(`\nDid-you-mean after one typo (impact's GRAPH_NODE_NOT_FOUND suggestions): hit@1 / hit@3 (asked), ${TYPOS_PER_FORM} sampled per form`);
  console.log('| repo | name | path#name | file | seek (the name as a query: top 3) |');
  console.log('|---|---|---|---|---|');
  for (const row of typoRows) console.log(row);
  console.log(`| all | ${[...typoTotals.values()].map((s) => `${pct(s.hit1 / Math.max(1, s.asked))} / ${pct(s.hit3 / Math.max(1, s.asked))} (${s.asked})`).join(' | ')} |`);
  const out = process.env.M1ND_QUALITY_OUT ?? path.join(QUALITY_DIR, 'results.json');
  fs.writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), baseline: rg ?? 'plain JS scan', samplePerKind: Number.isFinite(perKind) ? perKind : 'all', results }, null, 1) + '\n');
  console.log(`\nquality: results written to ${out}`);
}

function callerLines(r: BenchRepo, scores: CallerScore[]): string[] {
  return scores.map((s) => {
    const pr = precisionRecall(s.confusion);
    const c = s.confusion;
    // '(all)': the subset is every true caller (no dispatch callers in the truth), so it repeats recall.
    const subset = (x: Recalled): string => (x.truth === c.tp + c.fn ? '(all)' : `${f3(x.truth ? x.found / x.truth : 1)} of ${x.truth}`);
    return `| ${r.id} (${r.language}) | ${s.kind} | ${s.declarations} (${s.unmapped}, ${s.withCallers}) | ${c.tp + c.fn} (${s.missedWithoutNode}) | ${c.tp + c.fp} | ${f3(pr.precision)} | ${f3(pr.recall)} | ${subset(s.direct)} | ${subset(s.reachable)} |`;
  });
}

/** The ingest answer without its long lists. */
function summaryOf(json: any): unknown {
  if (!json || typeof json !== 'object') return json;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) if (!Array.isArray(v) && k !== '_m1nd') out[k] = v;
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(QUALITY_DIR, 'main.ts')) {
  await run();
  process.exit(0);
}
