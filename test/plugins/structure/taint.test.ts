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

const WEB: Record<string, string> = {
  'app/server.py': `import subprocess
import sqlite3
from flask import Flask, request

app = Flask(__name__)


def clean(name):
    if not name.isalnum():
        raise ValueError("bad name")
    return name


@app.route("/run")
def run_cmd():
    cmd = request.args.get("cmd")
    return subprocess.check_output(cmd, shell=True)


@app.route("/safe")
def run_safe():
    name = clean(request.args.get("name"))
    return subprocess.check_output(["echo", name])


def lookup(uid):
    if uid is None:
        raise KeyError(uid)
    return {"id": uid}


@app.route("/user")
def user():
    uid = request.args.get("id")
    lookup(uid)
    cur = sqlite3.connect("db.sqlite").cursor()
    cur.execute("SELECT * FROM users WHERE id = " + uid)
    return str(cur.fetchall())
`,
  'scripts/deploy.py': `import os
import sys


def banner():
    print("deploy")


if __name__ == "__main__":
    banner()
    os.system("deploy " + sys.argv[1])
`,
  'web/routes.ts': `import { exec } from 'node:child_process';
import express from 'express';

export function sanitize(s: string): string {
  return s.replace(/[^a-z0-9]/gi, '');
}

const app = express();
app.get('/ping', (req, res) => {
  exec(\`ping -c 1 \${req.query.host}\`, (err, out) => res.send(out));
});
app.get('/ok', (req, res) => {
  const host = sanitize(String(req.query.host));
  exec(\`ping -c 1 \${host}\`, (err, out) => res.send(out));
});
export default app;
`,
};

describe('taint_trace over web handlers as written', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  let all: any;
  before(async () => {
    ws = writeFixtureRepo(tempDir(), WEB);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    all = (await h.call('taint_trace', { agent_id: 'a', token_budget: 8000 })).json;
  });
  after(() => h?.close());
  const leaksOf = (r: any) => r.leaks.map((l: any) => `${l.entry} -> ${l.sink} ${l.sink_types.join(',')}`);

  it("reports subprocess.check_output(cmd, shell=True) as the sink it is, not as a check", () => {
    assert.ok(leaksOf(all).includes('function:app/server.py#run_cmd -> function:app/server.py#run_cmd command'), JSON.stringify(leaksOf(all)));
  });

  it('counts a call to a function that validates its input by its code (raises unless alphanumeric, returns it) as the boundary', () => {
    assert.ok(!leaksOf(all).some((l: string) => l.startsWith('function:app/server.py#run_safe')), JSON.stringify(leaksOf(all)));
    const g = all.guarded.find((x: any) => x.entry === 'function:app/server.py#run_safe');
    assert.equal(g?.boundary_code, 'clean(', JSON.stringify(all.guarded));
  });

  it('does not take a lookup that raises on a missing key and returns something else for a validator', () => {
    assert.ok(leaksOf(all).includes('function:app/server.py#user -> function:app/server.py#user sql'), JSON.stringify(leaksOf(all)));
  });

  it('finds inline Express handlers as entries (path:line), the unsanitised one leaking and the sanitised one guarded', () => {
    assert.ok(all.entries.includes('web/routes.ts:9') && all.entries.includes('web/routes.ts:12'), JSON.stringify(all.entries));
    assert.ok(leaksOf(all).includes('web/routes.ts:9 -> web/routes.ts:9 command'), JSON.stringify(leaksOf(all)));
    assert.ok(!leaksOf(all).some((l: string) => l.startsWith('web/routes.ts:12')), JSON.stringify(leaksOf(all)));
    assert.equal(all.guarded.find((x: any) => x.entry === 'web/routes.ts:12')?.boundary_code, 'sanitize(');
  });

  it("finds a script's __main__ block reading argv as an entry", () => {
    assert.ok(leaksOf(all).includes('scripts/deploy.py:9 -> scripts/deploy.py:9 command'), JSON.stringify(leaksOf(all)));
  });

  it('traces one inline handler named by path:line, and a line inside it names the same statement', async () => {
    for (const ref of ['web/routes.ts:9', 'web/routes.ts:10']) {
      const r = (await h.call('taint_trace', { agent_id: 'a', entry_nodes: [ref] })).json;
      assert.deepEqual(r.entries, ['web/routes.ts:9'], JSON.stringify(r));
      assert.equal(r.leak_count, 1, JSON.stringify(r));
    }
  });
});
