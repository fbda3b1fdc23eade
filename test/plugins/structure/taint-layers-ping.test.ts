import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../helpers/ping.ts';

/** 300 TypeScript route files (inline handlers, a type-only import each) and 200 Python scripts (TYPE_CHECKING imports, a __main__ block). */
function manyFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) {
    files[`web/routes${i}.ts`] = [
      "import { exec } from 'node:child_process';",
      `import type { Shape${(i + 1) % 300} } from './routes${(i + 1) % 300}.ts';`,
      `export interface Shape${i} { id: string }`,
      'const app: any = {};',
      `app.get('/run${i}', (req: any, res: any) => {`,
      `  exec(\`job \${req.query.name}\`, (err: unknown, out: string) => res.send(out));`,
      '});',
      `export function size${i}(s: Shape${(i + 1) % 300}): number {`,
      '  return s.id.length;',
      '}',
      '',
    ].join('\n');
  }
  for (let i = 0; i < 200; i++) {
    files[`tools/tool${i}.py`] = [
      'import os',
      'import sys',
      'import typing',
      'if typing.TYPE_CHECKING:',
      `    from tools.tool${(i + 1) % 200} import Thing${(i + 1) % 200}`,
      '',
      '',
      `class Thing${i}:`,
      '    pass',
      '',
      '',
      'if __name__ == "__main__":',
      '    os.system("deploy " + sys.argv[1])',
      '',
    ].join('\n');
  }
  return files;
}

describe('taint_trace, layers and flow_simulate on 500 files, beside a pinging client', function () {
  this.timeout(180_000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), manyFiles());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('detects entries (inline handlers, __main__ blocks) and traces them without holding the event loop over 50 ms', async () => {
    const { result, held, gc } = await pingDuringGc(h, () => h.call('taint_trace', { agent_id: 'a', top_k: 5 }));
    const r = result.json;
    assert.equal(result.result.isError, undefined, JSON.stringify(r).slice(0, 300));
    assert.equal(r.entry_count, 200);
    assert.match(r.entries_capped, /more than 200 entry points/);
    assert.ok(r.entries.some((e: string) => /^tools\/tool\d+\.py:12$/.test(e)) && r.leak_count >= 1, JSON.stringify(r.entries));
    assert.ok(Math.max(...ownHeld(held, gc)) < 50, describeHeld(held));
    const web = (await h.call('taint_trace', { agent_id: 'a', scope: 'web', top_k: 5 })).json;
    assert.ok(web.entries.length > 0 && web.entries.every((e: string) => /^web\/routes\d+\.ts:5$/.test(e)), JSON.stringify(web.entries));
    assert.equal(web.leak_count, 200);
  });

  it('sets the type-only import cycles aside in a cold layers call without holding the event loop over 50 ms', async () => {
    const { result, held, gc } = await pingDuringGc(h, () => h.call('layers', { agent_id: 'a', min_nodes_per_layer: 1 }));
    const r = result.json;
    assert.equal(result.result.isError, undefined, JSON.stringify(r).slice(0, 300));
    assert.equal(r.violation_counts.cycle, 0, JSON.stringify(r.violations.slice(0, 2)));
    assert.equal(r.type_only_dependencies, 500);
    assert.ok(Math.max(...ownHeld(held, gc)) < 50, describeHeld(held));
  });

  it('simulates flows from 100 given entries (100 files read) without holding the event loop over 50 ms, and bounds entry_nodes', async () => {
    const entries = Array.from({ length: 100 }, (_, i) => `function:web/routes${i}.ts#size${i}`);
    const { result, held, gc } = await pingDuringGc(h, () => h.call('flow_simulate', { agent_id: 'a', entry_nodes: entries }));
    assert.equal(result.result.isError, undefined, JSON.stringify(result.json).slice(0, 300));
    assert.equal(result.json.entry_count, 100, JSON.stringify(result.json).slice(0, 300));
    assert.ok(Math.max(...ownHeld(held, gc)) < 50, describeHeld(held));
    const many = await h.call('flow_simulate', { agent_id: 'a', entry_nodes: Array.from({ length: 101 }, (_, i) => `function:web/routes${i}.ts#size${i}`) });
    assert.equal(many.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
  });

  it('takes entry points only as graph references, bounded: a path outside the workspace is refused, 51 entries too', async () => {
    const outside = await h.call('taint_trace', { agent_id: 'a', entry_nodes: ['../../../etc/passwd:1'] });
    assert.equal(outside.result.isError, true);
    const many = await h.call('taint_trace', { agent_id: 'a', entry_nodes: Array.from({ length: 51 }, (_, i) => `web/routes${i}.ts:5`) });
    assert.equal(many.result.isError, true);
    assert.equal(many.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
  });
});
