import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const FILES = {
  'lib/app.js': `const http = require('http');
const fs = require('fs');

exports.listen = function listen(handler, port) {
  var server = http.createServer(handler);
  return server.listen(port);
};

exports.serve = function serve(handler) {
  const server = http.createServer(handler);
  return server;
};

exports.copy = function copy(out) {
  const input = fs.createReadStream('in.txt');
  input.pipe(out);
};

class Driver {
  async init() {
    this.conn.connect((error) => {});
    this.server = http.createServer(() => {});
  }
}
exports.Driver = Driver;

exports.cancel = async function cancel(make) {
  const control = make();
  try {
    await new Promise((resolve) => {
      control.connect(() => resolve());
    });
  } finally {
    control.destroy();
  }
};
`,
};

describe('resource_cleanup: a handle handed back to the caller is not left open', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('flags the stream no one closes, not the servers the functions return, the object keeps, or a connection the enclosing function destroys', async () => {
    const r = (await h.call('scan', { agent_id: 'a', pattern: 'resource_cleanup', severity_min: 0 })).json;
    const at = r.findings.map((f: any) => `${f.file}:${f.lines[0]}`);
    assert.deepEqual(at, ['lib/app.js:15'], JSON.stringify(r.findings));
  });
});
