import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../helpers/ping.ts';

const MODULES = 800;
const OPS = ['+', '-', '*', '/', '%', '**', '//', '<<', '>>', '&', '|', '^', '<', '>', '==', '!=', '<=', '>=', 'and', 'or'];

/** A function of `lines` expressions, each a different triple of operators: thousands of distinct shingles (a large buggy function; its first 6000 tokens are its shape). */
function bigFunction(name: string, lines: number): string {
  const out = [`def ${name}(a, b, c, d):`];
  for (let i = 0; i < lines; i++) out.push(`    v${i} = a ${OPS[i % 20]} b ${OPS[Math.floor(i / 20) % 20]} c ${OPS[(i * 7 + 3) % 20]} d`);
  out.push('    return a', '');
  return out.join('\n');
}

/** 800 modules of 40 small functions (32,000 symbols to compare), a large function and its copy under other names. */
function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < MODULES; i++) {
    const lines: string[] = [];
    for (let f = 0; f < 40; f++) lines.push(`def f_${i}_${f}(x, y):`, `    if x > ${f}:`, `        return x * y + ${i}`, `    return y - x`, '');
    out[`pkg${i % 10}/mod_${i}.py`] = lines.join('\n');
  }
  out['core/bug.py'] = bigFunction('buggy', 600);
  out['core/copy.py'] = bigFunction('copied', 600).replace(/\bv(\d+)\b/g, 'w$1');
  return out;
}

describe('antibody_scan of a large shape over 32,000 functions, beside a pinging client', function () {
  this.timeout(300_000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), files());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const made = await h.call('antibody_create', { agent_id: 'a', name: 'big arithmetic', pattern: { from_node: 'function:core/bug.py#buggy' } });
    assert.equal(made.result.isError, undefined, JSON.stringify(made.json).slice(0, 300));
    await h.call('antibody_scan', { agent_id: 'a' }); // the file facts computed: the call below compares only
  });
  after(() => h?.close());

  // The code before the pacing compared the pattern with every symbol in one turn, each by the whole
  // merge of the two shingle sets: ~100 ms here, 80–95 ms on the Python standard library (58,759
  // functions); paced, under 10 ms.
  it('finds the renamed copy and compares every symbol without holding the event loop over 50 ms', async () => {
    const { result, held, gc } = await pingDuringGc(h, () => h.call('antibody_scan', { agent_id: 'a' }));
    const r = result.json;
    assert.equal(result.result.isError, undefined, JSON.stringify(r).slice(0, 300));
    assert.deepEqual(r.matches.map((m: { node: string; similarity: number }) => [m.node, m.similarity]), [['function:core/copy.py#copied', 1]]);
    assert.ok(Math.max(...ownHeld(held, gc)) < 50, describeHeld(held));
  });
});
