import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { git, write } from './git-fixture.ts';

// One clock for every commit: the 15-day buckets then split them the same way on every run.
const NOW = Math.floor(Date.now() / 1000) * 1000;
const ago = (days: number) => new Date(NOW - days * 86_400_000).toISOString();

describe('learn events as evidence for trust and tremor', function () {
  this.timeout(120000);
  it('wrong outcomes lower a file\'s trust and recent events make it tremble; another agent\'s private feedback does not count', async () => {
    const ws = tempDir();
    write(ws, { 'a.ts': 'export function alpha(): number {\n  return 1;\n}\n', 'b.ts': 'export function beta(): number {\n  return 2;\n}\n' });
    git(ws, ['init', '-q', '-b', 'main'], ago(89));
    git(ws, ['add', '-A'], ago(89));
    git(ws, ['commit', '-q', '-m', 'init'], ago(89));
    // Half a day off the 15-day bucket edges, so each commit falls in one bucket whatever the clock.
    for (const d of [88.5, 73.5, 58.5, 43.5, 28.5, 13]) {
      for (const f of ['a.ts', 'b.ts']) fs.appendFileSync(path.join(ws, f), `// ${d}\n`);
      git(ws, ['add', '-A'], ago(d));
      git(ws, ['commit', '-q', '-m', `tune ${d}`], ago(d));
    }
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const before = await h.call('trust', { agent_id: 'a' });
      assert.deepEqual(before.json.files.map((f: any) => [f.file, f.trust]), [['a.ts', 1], ['b.ts', 1]]);
      const calm = await h.call('tremor', { agent_id: 'a', window: '90d' });
      assert.deepEqual(calm.json.tremors, [], JSON.stringify(calm.json));

      for (let i = 0; i < 3; i++) {
        const l = await h.call('learn', { agent_id: 'a', query: `alpha result ${i}`, feedback: 'wrong', node_ids: ['function:a.ts#alpha'], scope: 'team' });
        assert.equal(l.result.isError, undefined, JSON.stringify(l.json));
      }
      // Private feedback of another agent on b.ts: not the caller's evidence.
      await h.call('learn', { agent_id: 'other', query: 'beta', feedback: 'wrong', node_ids: ['function:b.ts#beta'] });

      const after = await h.call('trust', { agent_id: 'a' });
      const a = after.json.files.find((f: any) => f.file === 'a.ts');
      const b = after.json.files.find((f: any) => f.file === 'b.ts');
      assert.equal(after.json.learn_events, 3);
      assert.ok(a.trust < 0.7 && a.fix_commits === 0, JSON.stringify(a));
      assert.equal(a.learn.wrong, 3);
      assert.equal(a.learn.last.feedback, 'wrong');
      assert.equal(b.trust, 1);
      assert.equal(after.json.files[0].file, 'a.ts');
      // The other agent sees its own feedback on b.ts.
      const theirs = await h.call('trust', { agent_id: 'other' });
      assert.ok(theirs.json.files.find((f: any) => f.file === 'b.ts').trust < 1);
      // Without learn events the score is git's alone.
      const gitOnly = await h.call('trust', { agent_id: 'a', include_learn: false });
      assert.equal(gitOnly.json.files.find((f: any) => f.file === 'a.ts').trust, 1);

      const shaking = await h.call('tremor', { agent_id: 'a', window: '90d', include_history: true });
      assert.deepEqual(shaking.json.tremors.map((t: any) => t.file), ['a.ts'], JSON.stringify(shaking.json));
      assert.equal(shaking.json.tremors[0].learn_events, 3);
      assert.equal(shaking.json.tremors[0].commits, 7);
      // The last 15-day bucket holds the commit of 13 days ago and the three learn events.
      assert.equal(shaking.json.tremors[0].per_bucket.at(-1), 4);
    } finally {
      await h.close();
    }
  });
});
