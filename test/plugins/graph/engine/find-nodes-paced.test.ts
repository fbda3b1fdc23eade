import { strict as assert } from 'node:assert';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';
import { loopIterations } from '../../../helpers/loop-iterations.ts';

/** 120 modules of 12 functions and a class each: ~1,700 nodes, more than one slice of the label scan. */
function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let m = 0; m < 120; m++) {
    const lines = [`class Reader${m}:`, '    def parse_header(self, text):', `        return text.strip() + "${m}"`, ''];
    for (let f = 0; f < 12; f++) lines.push(`def step_${m}_${f}(x):`, `    return x + ${f}`, '');
    out[`pkg/mod_${m}.py`] = lines.join('\n');
  }
  return out;
}

describe('finding nodes in slices (a call’s node argument)', function () {
  this.timeout(60_000);
  let root: string;
  let engine: CodeGraphEngine;
  before(async () => {
    root = writeWorkspace(files(), 'm1nd-find-paced-');
    engine = new CodeGraphEngine({ root, storeDir: `${root}/.store`, typeCheck: false, gitMaxCommits: 0, parseWorkers: 0 });
    await engine.ingest();
    await engine.prepareSeek();
  });
  after(async () => {
    await engine?.close();
    removeWorkspace(root);
  });

  const inputs: [string, { limit?: number; kinds?: ('class' | 'function' | 'method')[] }][] = [
    ['function:pkg/mod_3.py#step_3_4', {}],
    ['pkg/mod_7.py', {}],
    ['pkg/mod_7.py:6', {}],
    ['pkg/mod_9.py#Reader9', {}],
    ['step_11_2', {}],
    ['STEP_11_2', {}],
    ['Reader5.parse_header', {}],
    ['parse_header', { limit: 3 }],
    ['Readr5', { limit: 3 }],
    ['Readr5', { limit: 3, kinds: ['class'] }],
    ['step_11_2', { kinds: ['class'] }],
  ];

  it('answers as findNodes does, for ids, paths, path:line, path#name, labels, folded labels, qualified names and seek', async () => {
    for (const [text, options] of inputs) {
      const sync = engine.findNodes(text, options).map((m) => [m.node.id, m.via, m.score]);
      assert.ok(sync.length > 0 || options.kinds, `${text} finds something`);
      assert.deepEqual((await engine.findNodesPaced(text, options)).map((m) => [m.node.id, m.via, m.score]), sync, text);
    }
  });

  it('gives the event loop back during the scan of every label', async () => {
    const loop = loopIterations();
    try {
      // A 0 ms slice: the scan yields at each of its steps, so the loop goes round meanwhile.
      const found = await engine.findNodesPaced('Readr5', { limit: 3 }, 0);
      assert.ok(found.length > 0);
      assert.ok(loop.count >= 2, `the loop went round ${loop.count} times while the labels were scanned`);
    } finally {
      loop.stop();
    }
  });
});
