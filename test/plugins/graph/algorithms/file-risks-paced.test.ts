import { strict as assert } from 'node:assert';
import { fileRisks, warmFileRisks } from '../../../../plugins/graph/algorithms/hotspots.ts';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { removeWorkspace, writeWorkspace } from '../engine/helpers.ts';

/** 400 modules importing the one before (and a test module importing one): ~5,200 nodes, ~15,000 edges. */
function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let m = 0; m < 400; m++) {
    const lines = m > 0 ? [`from pkg.mod_${m - 1} import step_${m - 1}_0`, ''] : [''];
    for (let f = 0; f < 12; f++) lines.push(`def step_${m}_${f}(x):`, `    return ${m > 0 ? `step_${m - 1}_0(x)` : 'x'} + ${f}`, '');
    out[`pkg/mod_${m}.py`] = lines.join('\n');
  }
  out['tests/test_mods.py'] = 'from pkg.mod_3 import step_3_1\n\ndef test_step():\n    assert step_3_1(1)\n';
  out['pkg/__init__.py'] = '';
  return out;
}

async function ingested(): Promise<{ root: string; engine: CodeGraphEngine }> {
  const root = writeWorkspace(files(), 'm1nd-risks-');
  const engine = new CodeGraphEngine({ root, storeDir: `${root}/.store`, typeCheck: false, gitMaxCommits: 0, parseWorkers: 0 });
  await engine.ingest();
  return { root, engine };
}

describe('file risks made in slices (report, coverage_session)', function () {
  this.timeout(60_000);
  const made: { root: string; engine: CodeGraphEngine }[] = [];
  after(async () => {
    for (const { root, engine } of made) {
      await engine.close();
      removeWorkspace(root);
    }
  });

  it('are the risks fileRisks makes in one piece, and give the event loop back while they are made', async () => {
    const a = await ingested();
    const b = await ingested();
    made.push(a, b);
    const byPath = (e: CodeGraphEngine, risks: ReturnType<typeof fileRisks>) => risks.map((r) => ({ ...r, file: e.graph.node(r.file)!.path }));
    const whole = byPath(a.engine, fileRisks(a.engine.graph, a.engine.pagerank().scores));
    let paces = 0;
    await warmFileRisks(b.engine.graph, b.engine.pagerank().scores, async () => {
      paces++;
      await new Promise((r) => setImmediate(r));
    });
    assert.ok(paces >= 4, `${paces} paces (every 4,096 nodes or edges, and before the ranking)`);
    const sliced = byPath(b.engine, fileRisks(b.engine.graph, b.engine.pagerank().scores));
    assert.deepEqual(sliced, whole);
    assert.ok(whole.length >= 400);
    assert.equal(whole.find((r) => r.file === 'pkg/mod_3.py')?.tested, true, 'the file a test imports is tested');
    assert.ok((whole.find((r) => r.file === 'pkg/mod_0.py')?.dependents ?? 0) >= 1);
  });
});
