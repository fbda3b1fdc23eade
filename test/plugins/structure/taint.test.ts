import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const SERVER = (guard: string) => `import { exec } from 'node:child_process';

export function handleRun(req: any, res: any): void {
  const name = ${guard}req.body.name${guard ? ')' : ''};
  runJob(name);
  res.send('ok');
}

function runJob(name: string): void {
  launch(\`deploy --target \${name}\`);
}

function launch(cmd: string): void {
  exec(cmd);
}

export function validateName(n: string): string {
  if (!/^[a-z]+$/.test(n)) throw new Error('bad name');
  return n;
}
`;

const FILES: Record<string, string> = {
  'src/server.ts': SERVER(''),
  'py/cli.py': `import os
import sys
import shlex


def main():
    target = sys.argv[1]
    deploy(target)


def deploy(target):
    os.system("deploy " + target)


def main_quoted():
    target = shlex.quote(sys.argv[1])
    deploy(target)
`,
};

describe('taint_trace from an HTTP handler to exec', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reports the unsanitised path handler → runJob → launch(exec) with the missing boundary', async () => {
    const r = await h.call('taint_trace', { agent_id: 'a', entry_nodes: ['function:src/server.ts#handleRun'], taint_type: 'command' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.leak_count, 1, JSON.stringify(r.json));
    const [leak] = r.json.leaks;
    assert.deepEqual(leak.path, ['function:src/server.ts#handleRun', 'function:src/server.ts#runJob', 'function:src/server.ts#launch']);
    assert.deepEqual(leak.sink_types, ['command']);
    assert.match(leak.missing, /sanitisation/);
  });

  it('detects entry points from the code when none are given, in TypeScript and Python', async () => {
    const r = await h.call('taint_trace', { agent_id: 'a' });
    assert.equal(r.json.entries_detected, true);
    assert.ok(r.json.entries.includes('function:src/server.ts#handleRun'), JSON.stringify(r.json.entries));
    const leaks = r.json.leaks.map((l: any) => `${l.entry} -> ${l.sink}`);
    assert.ok(leaks.includes('function:py/cli.py#main -> function:py/cli.py#deploy'), JSON.stringify(leaks));
    assert.ok(!leaks.some((l: string) => l.startsWith('function:py/cli.py#main_quoted')), 'shlex.quote guards the other entry');
    const g = r.json.guarded.find((x: any) => x.entry === 'function:py/cli.py#main_quoted');
    assert.equal(g.boundary, 'function:py/cli.py#main_quoted');
    assert.match(g.boundary_code, /shlex\.quote/);
  });

  it('finds no leak once a validator sits on the path, and names it as the guard', async () => {
    fs.writeFileSync(path.join(ws, 'src/server.ts'), SERVER('validateName('));
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = await h.call('taint_trace', { agent_id: 'a', entry_nodes: ['function:src/server.ts#handleRun'], taint_type: 'command' });
    assert.equal(r.json.leak_count, 0, JSON.stringify(r.json));
    assert.equal(r.json.guarded[0].boundary, 'function:src/server.ts#handleRun');
    assert.match(r.json.guarded[0].boundary_code, /validateName\(/);
  });

  it('an unknown entry node is an error with did-you-mean', async () => {
    const r = await h.call('taint_trace', { agent_id: 'a', entry_nodes: ['handleRunn'] });
    assert.equal(r.result.isError, true);
  });
});
