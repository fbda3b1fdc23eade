import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// What a truth sweep over public repositories found taint_trace and flow_simulate claiming wrongly.
const FILES: Record<string, string> = {
  // A guide's example, outside any heading, reads request input and runs a command: nothing here runs.
  'docs/hooks.md': `Hooks are called with the request.

\`\`\`python
def hook(request):
    os.system("echo " + request.args["cmd"])
\`\`\`
`,
  // An Express handler reflecting a route parameter into an HTML reply by concatenation.
  'web/vhost.js': `const express = require('express');
const app = express();

app.get('/:sub', function (req, res) {
  res.send('requested ' + req.params.sub);
});

app.get('/', function (req, res) {
  res.send('hello');
});

module.exports = app;
`,
  // A module's opening block comment spans three lines: the handler below is on line 9.
  'web/cookies.js': `/**
 * Module dependencies.
 */

const express = require('express');
const app = express();
module.exports = app;

app.get('/', function (req, res) {
  res.send('<p>' + req.query.name + '</p>');
});
`,
  // Input decides which fixed page to send; no input is in the reply.
  'web/form.js': `const express = require('express');
const app = express();
module.exports = app;

app.get('/form', function (req, res) {
  if (req.cookies.remember) res.send('ok');
  else res.send('<form method="post">'
    + '<input type="submit"/></form>');
});
`,
  // Sinks run before the input is read take none of it; one after it, or one whose call spans the read, does.
  'py/tasks.py': `import os
import sys
from flask import request


def write_fixture_then_read(path):
    with open(path, "w") as f:
        f.write("x")
    return request.headers.get("accept")


def save():
    name = request.args.get("name")
    with open(name, "w") as f:
        f.write("x")


def run():
    os.system(
        "deploy " + sys.argv[1]
    )
`,
};

describe('taint_trace and flow_simulate claims checked against the code', function () {
  this.timeout(60000);
  let h: Harness;
  let all: any;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    all = (await h.call('taint_trace', { agent_id: 'a', token_budget: 8000 })).json;
  });
  after(() => h?.close());
  const leaksOf = (r: any) => r.leaks.map((l: any) => `${l.entry} -> ${l.sink} ${l.sink_types.join(',')}`);

  it('takes no entry from a Markdown page (its code blocks are examples, not code that runs)', async () => {
    assert.ok(!all.entries.some((e: string) => e.startsWith('docs/')), JSON.stringify(all.entries));
    assert.ok(!leaksOf(all).some((l: string) => l.startsWith('docs/')), JSON.stringify(leaksOf(all)));
    const flow = (await h.call('flow_simulate', { agent_id: 'a' })).json;
    assert.ok(!flow.entries.some((e: string) => e.startsWith('docs/')), JSON.stringify(flow.entries));
  });

  it('names an inline handler by its own line when a block comment spanning lines sits above it', () => {
    assert.ok(all.entries.includes('web/cookies.js:9'), JSON.stringify(all.entries));
    assert.ok(leaksOf(all).includes('web/cookies.js:9 -> web/cookies.js:9 html'), JSON.stringify(leaksOf(all)));
  });

  it("takes a sink run before the entry reads any input for no leak, and keeps one after the read or spanning it", () => {
    const leaks = leaksOf(all);
    assert.ok(!leaks.some((l: string) => l.startsWith('function:py/tasks.py#write_fixture_then_read')), JSON.stringify(leaks));
    assert.ok(leaks.includes('function:py/tasks.py#save -> function:py/tasks.py#save path'), JSON.stringify(leaks));
    assert.ok(leaks.includes('function:py/tasks.py#run -> function:py/tasks.py#run command'), JSON.stringify(leaks));
  });

  it("reports res.send of a string concatenated with a route parameter as an html leak", () => {
    assert.ok(leaksOf(all).includes('web/vhost.js:4 -> web/vhost.js:4 html'), JSON.stringify(leaksOf(all)));
    assert.ok(!leaksOf(all).some((l: string) => l.startsWith('web/vhost.js:8')), JSON.stringify(leaksOf(all)));
    // Fixed strings concatenated over lines are no reflected input.
    assert.ok(!leaksOf(all).some((l: string) => l.startsWith('web/form.js')), JSON.stringify(leaksOf(all)));
  });
});
