/**
 * A cold `twins` (cold-shapes.ts: lexical sketches pick candidates, only they get AST shapes) against
 * the full comparison (every symbol's AST shape from the file facts), on the same graph with the
 * same scoring (twin-pairs.ts scoreTwins, threshold 0.8): the recall of the full method's pairs
 * (all, best 50 / 500, similarity ≥ 0.9 / 0.95), the share of symbols and lines that are candidates,
 * and the CPU of each step in-process on one thread (sketches, candidate pick, candidates' shapes
 * with Python files parsed on the candidates' ranges) against the full facts and a bare parse.
 *
 *   node --import tsx bench/structure-twins-recall.ts [--corpus DIR]... [--store DIR] [--threshold 0.6] (default: the python3 stdlib, site-packages excluded)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import type { GraphNode } from '../plugins/graph/api.ts';
import { CODE_LANGUAGES, parseCode } from '../plugins/structure/code-trees.ts';
import { SKETCH_MIN_TOKENS, shapesJob, sketchJob, unpackDefinitions, unpackSketches } from '../plugins/structure/cold-shapes-work.ts';
import { pickCandidates, SKETCH_THRESHOLD } from '../plugins/structure/cold-shapes.ts';
import { classNamesOf } from '../plugins/structure/facts-cache.ts';
import type { Shape } from '../plugins/structure/definition-shapes.ts';
import { computeFacts } from '../plugins/structure/file-facts.ts';
import '../plugins/structure/grammars.ts';
import { definitionShapesOf } from '../plugins/structure/shapes.ts';
import { scoreTwins, type TwinPair } from '../plugins/structure/twin-pairs.ts';

const EXCLUDE = ['site-packages/**', '**/node_modules/**', '**/dist/**'];
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const key = (p: TwinPair) => [p.a.id, p.b.id].sort().join(' = ');
const noop = async () => undefined;

async function compare(root: string, store: string | null): Promise<void> {
  const dir = store ?? mkdtempSync(join(tmpdir(), 'm1nd-twins-recall-'));
  try {
    const engine = new CodeGraphEngine({ root, storeDir: dir, exclude: EXCLUDE, typeCheck: false });
    await engine.open();
    if (engine.graph.nodeCount === 0) await engine.ingest();
    const g = engine.graph;
    const kinds = new Set(['function', 'method']);
    const symbols: GraphNode[] = [];
    for (const [, n] of g.nodes()) if (kinds.has(n.kind) && n.language && CODE_LANGUAGES.includes(n.language) && n.endLine - n.startLine >= 2) symbols.push(n);
    const byFile = new Map<string, GraphNode[]>();
    for (const s of symbols) {
      const list = byFile.get(s.path);
      if (list) list.push(s);
      else byFile.set(s.path, [s]);
    }
    const paths = [...byFile.keys()];
    const texts = paths.map((p) => engine.readFile(p).content);
    const tasks = paths.map((path) => ({ path, language: byFile.get(path)![0].language!, ranges: byFile.get(path)!.flatMap((s) => [s.startLine, s.endLine]) }));
    const classes = classNamesOf(g).set;

    let t = cpu();
    for (let k = 0; k < paths.length; k++) (await parseCode(tasks[k].language, texts[k]))?.done();
    const parseMs = cpu() - t;
    t = cpu();
    const full = new Map<string, Shape>();
    for (let k = 0; k < paths.length; k++) {
      const facts = await computeFacts(tasks[k].language, texts[k], paths[k], classes);
      if (facts) definitionShapesOf(facts.defs, byFile.get(paths[k])!, full);
    }
    const fullMs = cpu() - t;

    t = cpu();
    const sketches = new Map<string, Shape>();
    for (let k = 0; k < paths.length; k += 24) {
      const files = unpackSketches(sketchJob(tasks.slice(k, k + 24), texts.slice(k, k + 24)));
      files.forEach((list, i) => list?.forEach((s, j) => s.tokens >= SKETCH_MIN_TOKENS && sketches.set(byFile.get(paths[k + i])![j].id, s)));
    }
    const sketchMs = cpu() - t;
    t = cpu();
    const candidates = await pickCandidates(byFile.values(), sketches, noop, threshold);
    const pickMs = cpu() - t;
    t = cpu();
    const cold = new Map<string, Shape>();
    let parsedFiles = 0;
    let parsedChars = 0;
    for (let k = 0; k < paths.length; k++) {
      const list = byFile.get(paths[k])!.filter((s) => candidates.has(s.id));
      if (!list.length) continue;
      parsedFiles++;
      parsedChars += texts[k].length;
      const defs = unpackDefinitions(await shapesJob([{ ...tasks[k], ranges: list.flatMap((s) => [s.startLine, s.endLine]) }], [texts[k]]))[0];
      if (defs) definitionShapesOf(defs, list, cold);
    }
    const coldMs = cpu() - t;
    const lines = (list: Iterable<GraphNode>) => [...list].reduce((n, s) => n + s.endLine - s.startLine + 1, 0);
    const chars = texts.reduce((n, s) => n + s.length, 0);
    console.log(
      `recall: ${root}: ${paths.length} files (${(chars / 1e6).toFixed(1)} MB), ${symbols.length} symbols; candidates ${candidates.size} (${((100 * lines(symbols.filter((s) => candidates.has(s.id)))) / lines(symbols)).toFixed(1)} % of the symbols' lines), their files ${parsedFiles} (${((100 * parsedChars) / chars).toFixed(1)} % of the text)`,
    );
    console.log(
      `recall: CPU in-process: parse only ${parseMs.toFixed(0)} ms; full facts (the old cold twins) ${fullMs.toFixed(0)} ms; cold path: sketches ${sketchMs.toFixed(0)} ms + pick ${pickMs.toFixed(0)} ms + candidates' shapes ${coldMs.toFixed(0)} ms = ${(sketchMs + pickMs + coldMs).toFixed(0)} ms (${((sketchMs + pickMs + coldMs) / fullMs).toFixed(2)} × full facts, ${((sketchMs + pickMs + coldMs) / parseMs).toFixed(2)} × parse)`,
    );
    t = cpu();
    const fullPairs = await scoreTwins(g, symbols, full, kinds, 0.8, 30, noop);
    const fullScoreMs = cpu() - t;
    t = cpu();
    const coldPairs = await scoreTwins(g, symbols, cold, kinds, 0.8, 30, noop);
    const coldScoreMs = cpu() - t;
    const got = new Set(coldPairs.map(key));
    const fullKeys = new Set(fullPairs.map(key));
    const recall = (list: TwinPair[]) => (list.length ? list.filter((p) => got.has(key(p))).length / list.length : 1);
    const at = (x: number) => fullPairs.filter((p) => p.similarity >= x);
    console.log(
      `recall: pairs full ${fullPairs.length} (scoring ${fullScoreMs.toFixed(0)} ms), cold ${coldPairs.length} (scoring ${coldScoreMs.toFixed(0)} ms), cold pairs not in full ${coldPairs.filter((p) => !fullKeys.has(key(p))).length}; recall of the full pairs: all ${recall(fullPairs).toFixed(3)}, best 50 ${recall(fullPairs.slice(0, 50)).toFixed(3)}, best 500 ${recall(fullPairs.slice(0, 500)).toFixed(3)}, ≥ 0.95 ${recall(at(0.95)).toFixed(3)} (${at(0.95).length}), ≥ 0.9 ${recall(at(0.9)).toFixed(3)} (${at(0.9).length})`,
    );
    await engine.close();
  } finally {
    if (!store) rmSync(dir, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
const thresholdArg = argv.indexOf('--threshold');
const threshold = thresholdArg >= 0 ? Number(argv[thresholdArg + 1]) : SKETCH_THRESHOLD;
const corpora: string[] = [];
for (let i = 0; i < argv.length; i++) if (argv[i] === '--corpus') corpora.push(argv[++i]);
if (corpora.length === 0) corpora.push(execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim());
const storeArg = argv.indexOf('--store');
for (const root of corpora) await compare(root, storeArg >= 0 && corpora.length === 1 ? argv[storeArg + 1] : null);
