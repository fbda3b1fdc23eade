/**
 * Calls the checker finds no declaration for keep their name-resolved edge. Found in a sweep of
 * express: its `app` is a function that `createApplication` mixes `lib/application.js`'s methods
 * into, so the checker types `app.listen` as nothing, and with its edges replacing the
 * name-resolved ones `app.use` had 4 callers of 85 and `app.listen` 1 of 29.
 */
import assert from 'node:assert/strict';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'mini-express', version: '1.0.0' }),
  'index.js': `'use strict';\nmodule.exports = require('./lib/express');\n`,
  'lib/express.js': `'use strict';
var proto = require('./application');

function mixin(dest, src) {
  Object.getOwnPropertyNames(src).forEach(function (name) {
    Object.defineProperty(dest, name, Object.getOwnPropertyDescriptor(src, name));
  });
  return dest;
}

function createApplication() {
  var app = function (req, res, next) {
    app.handle(req, res, next);
  };
  mixin(app, proto);
  app.init();
  return app;
}

exports = module.exports = createApplication;
`,
  'lib/application.js': `'use strict';
var app = exports = module.exports = {};

app.init = function init() {
  this.settings = {};
};

app.handle = function handle(req, res, next) {
  return next();
};

app.listen = function listen(port) {
  return port;
};

app.use = function use(fn) {
  return this;
};
`,
  'lib/util.js': `'use strict';
exports.describe = function describe(value) {
  return String(value);
};
`,
  'examples/hello/index.js': `'use strict';
var express = require('../..');
var util = require('../../lib/util');

var app = express();
app.use(function (req, res) {
  res.end(util.describe('hello'));
});
app.listen(3000);
`,
  'test/app.js': `'use strict';
var express = require('..');

function startServer() {
  var app = express();
  app.use(function () {});
  return app.listen(0);
}

module.exports = startServer;
`,
};

async function callers(h: Harness, id: string): Promise<string[]> {
  const { json } = await h.call('impact', { agent_id: 'q', node_id: id, direction: 'reverse', max_depth: 1, detail: 'full' });
  assert.ok(Array.isArray(json.direct), JSON.stringify(json).slice(0, 300));
  return (json.direct as { id: string; relation: string }[]).filter((e) => e.relation.split('+').includes('calls')).map((e) => e.id).sort();
}

describe('member calls the type checker cannot resolve (JavaScript mixins)', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-mixin-'), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false } } } });
    const { json } = await h.call('ingest', { agent_id: 'setup', path: '.' });
    assert.equal(json.type_checked.failed, 0);
    assert.ok(json.type_checked.precise >= 5, JSON.stringify(json.type_checked));
  });
  after(() => h?.close());

  it('keeps the name-resolved calls of methods mixed into a function (app.listen, app.use)', async () => {
    assert.deepEqual(await callers(h, 'method:lib/application.js#app.listen'), ['file:examples/hello/index.js', 'function:test/app.js#startServer']);
    assert.deepEqual(await callers(h, 'method:lib/application.js#app.use'), ['file:examples/hello/index.js', 'function:test/app.js#startServer']);
  });

  it("still answers from the checker where it resolves the call (util.describe), and a folder's require('..') reaches its index", async () => {
    assert.deepEqual(await callers(h, 'function:lib/util.js#describe'), ['file:examples/hello/index.js']);
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'file:index.js', direction: 'reverse', max_depth: 1, detail: 'full' });
    const importers = (json.direct as { id: string }[]).map((e) => e.id).sort();
    assert.deepEqual(importers, ['file:examples/hello/index.js', 'file:test/app.js']);
  });
});
