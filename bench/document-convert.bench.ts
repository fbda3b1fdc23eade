/**
 * Conversion workers: 50 small HTML pages (and 20 small PDFs) converted one after another, as an
 * auto-ingest tick does, by the warm worker pool (convert/runner.ts) against a fresh worker per
 * document (the pool emptied before each one: what every conversion paid before the pool), in the
 * same run, alternating the two modes. Prints wall time, process CPU and workers started.
 *
 *   node --import tsx bench/run.ts document-convert
 */
import { conversionWorkers, convertInWorker, setConversionLimits } from '../plugins/documents/convert/runner.ts';
import { makePdf } from '../test/plugins/documents/document-fixtures.ts';

const HTML = 50;
const PDF = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function batch(format: 'html' | 'pdf', docs: Uint8Array[], fresh: boolean): Promise<{ wall: number; cpu: number; started: number }> {
  setConversionLimits({}); // no warm worker left from the previous run
  const s0 = conversionWorkers().started;
  const c0 = cpuMs();
  const t0 = performance.now();
  for (const d of docs) {
    if (fresh) setConversionLimits({}); // stops the idle worker: the next document starts its own
    const md = await convertInWorker(format, format.toUpperCase(), d);
    if (md.length < 10) throw new Error(`empty conversion: ${md}`);
  }
  return { wall: performance.now() - t0, cpu: cpuMs() - c0, started: conversionWorkers().started - s0 };
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const enc = new TextEncoder();
  const html = Array.from({ length: HTML }, (_, i) => enc.encode(`<html><body><h1>Page ${i}</h1><p>The <code>parseLedger</code> step ${i} balances the books.</p><ul><li>a</li><li>b</li></ul></body></html>`));
  const pdf = Array.from({ length: PDF }, (_, i) => new Uint8Array(makePdf([`Spec ${i}`, `The checkout calls total() from src/cart.ts, step ${i}.`])));
  for (const [format, docs] of [['html', html], ['pdf', pdf]] as const) {
    const runs: Record<'pool' | 'fresh', { wall: number; cpu: number; started: number }[]> = { pool: [], fresh: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.fresh.push(await batch(format, docs, true));
      runs.pool.push(await batch(format, docs, false));
    }
    const best = (k: 'pool' | 'fresh') => runs[k].sort((a, b) => a.wall - b.wall)[0];
    const p = best('pool');
    const f = best('fresh');
    console.log(
      `${docs.length} ${format.toUpperCase()} documents: warm pool ${(p.wall / 1000).toFixed(2)} s wall, ${(p.cpu / 1000).toFixed(2)} s CPU, ${p.started} worker(s) started; ` +
        `fresh worker each ${(f.wall / 1000).toFixed(2)} s wall, ${(f.cpu / 1000).toFixed(2)} s CPU, ${f.started} started; pool ÷ fresh wall ${(p.wall / f.wall).toFixed(2)}, CPU ${(p.cpu / f.cpu).toFixed(2)} (best of ${ROUNDS}, alternated)`,
    );
  }
  setConversionLimits({});
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
