import { strict as assert } from 'node:assert';
import type { Harness } from '../../../../helpers/mcp.ts';
import { callersOf, ingestedRepo } from './callers.ts';

// JavaScript declares methods outside classes: on a constructor's prototype, on a plain object, on
// `exports`. Each is a node, and the calls through `this`, a typed field or an alias reach it.
const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'fixture', version: '1.0.0' }),
  'lib/ruler.mjs': `/** An ordered list of named rules. */
export default function Ruler() {
  this.rules = [];
}

/** Index of a rule by name, or -1. */
Ruler.prototype.find = function (name) {
  return this.rules.indexOf(name);
};

Ruler.prototype.push = function (name) {
  if (this.find(name) < 0) this.rules.push(name);
};
`,
  'lib/parser.mjs': `import Ruler from './ruler.mjs';

function Parser() {
  this.ruler = new Ruler();
}

Parser.prototype.parse = function (src) {
  this.ruler.push(src);
  return this.tokenize(src);
};

Parser.prototype.tokenize = (src) => src.split(' ');

export default Parser;
`,
  'lib/utils.js': `exports.compile = function compile(val) {
  return normalize(val);
};

function normalize(v) {
  return String(v);
}
`,
  'lib/app.js': `var utils = require('./utils');
var app = exports = module.exports = {};

app.init = function init() {
  this.settings = {};
  this.set('env', 'development');
};

app.set = function set(key, val) {
  this.settings[key] = val;
  return this;
};

app.handle = function handle(req) {
  return utils.compile(req);
};

app.get = app.header = function header(name) {
  return this.settings[name];
};

app.env = function env() {
  return this.get('env');
};
`,
  'lib/fail.mjs': `export function fail(name) {
  throw new Error(name);
}
`,
  'lib/plugins.mjs': `import { fail } from './fail.mjs';

export const plugins = [
  { name: 'a', validate(v) { if (!v) fail('a'); } },
  { name: 'b', validate(v) { if (v < 0) fail('b'); } },
];
`,
  'lib/numbers.mjs': `export function twice(x) {
  return 2 * x;
}

export function half(x) {
  return x / 2;
}
`,
  'lib/calc.mjs': `import * as numbers from './numbers.mjs';

const twice = numbers.twice;
const { half } = numbers;

export function calc(x) {
  return twice(x) + half(x);
}
`,
  'lib/queue.js': `function Queue() {
  this.items = [];
}

Queue.prototype = {
  push: function (x) {
    this.items.push(x);
    return this.size();
  },
  size() {
    return this.items.length;
  },
};

module.exports = {
  create: function () {
    return new Queue();
  },
  fill(q, xs) {
    for (const x of xs) q.push(x);
  },
};
`,
  'lib/start.js': `const queues = require('./queue');

function start() {
  const q = queues.create();
  queues.fill(q, [1]);
  return q;
}

module.exports = start;
`,
  'lib/main.js': `var compile = require('./utils').compile;

function run(x) {
  return compile(x);
}

module.exports = run;
`,
};

for (const typeCheck of [true, false]) {
  describe(`JavaScript methods declared by assignment (${typeCheck ? 'with' : 'without'} the checker pass)`, function () {
    this.timeout(120_000);
    let h: Harness;

    before(async () => {
      h = await ingestedRepo(FILES, { typeCheck });
    });

    after(async () => {
      await h?.close();
    });

    it('makes a constructor function with prototype methods a class, and its methods methods', async () => {
      const { json } = await h.call('seek', { agent_id: 't', query: 'Ruler', top_k: 5 });
      const ids = json.results.map((r: { id: string }) => r.id);
      assert.ok(ids.includes('class:lib/ruler.mjs#Ruler'), ids.join(', '));
      assert.ok(ids.includes('method:lib/ruler.mjs#Ruler.find'), ids.join(', '));
      const view = await h.call('impact', { agent_id: 't', node_id: 'method:lib/ruler.mjs#Ruler.find', direction: 'reverse', max_depth: 1 });
      assert.deepEqual(view.json.structure, ['class:lib/ruler.mjs#Ruler']);
    });

    it('links `this.m()` in a prototype method to the sibling method', async () => {
      assert.deepEqual(await callersOf(h, 'method:lib/ruler.mjs#Ruler.find'), ['method:lib/ruler.mjs#Ruler.push']);
      assert.deepEqual(await callersOf(h, 'method:lib/parser.mjs#Parser.tokenize'), ['method:lib/parser.mjs#Parser.parse']);
    });

    it('types a field the constructor function assigns, and links `new` to the constructor', async () => {
      assert.deepEqual(await callersOf(h, 'method:lib/ruler.mjs#Ruler.push'), ['method:lib/parser.mjs#Parser.parse']);
      assert.deepEqual(await callersOf(h, 'class:lib/ruler.mjs#Ruler'), ['class:lib/parser.mjs#Parser']);
    });

    it('links `this.m()` in a method assigned on a plain object to the object\'s method', async () => {
      assert.deepEqual(await callersOf(h, 'method:lib/app.js#app.set'), ['method:lib/app.js#app.init']);
      // `app.get = app.header = function header() {…}`: one method; the checker knows both names reach it.
      if (typeCheck) assert.deepEqual(await callersOf(h, 'method:lib/app.js#app.header'), ['method:lib/app.js#app.env']);
    });

    it('reads the functions of a prototype object literal as methods and of a module.exports object as exported functions', async () => {
      assert.deepEqual(await callersOf(h, 'method:lib/queue.js#Queue.size'), ['method:lib/queue.js#Queue.push']);
      assert.deepEqual(await callersOf(h, 'class:lib/queue.js#Queue'), ['function:lib/queue.js#create']);
      assert.deepEqual(await callersOf(h, 'function:lib/queue.js#create'), ['function:lib/start.js#start']);
      assert.deepEqual(await callersOf(h, 'function:lib/queue.js#fill'), ['function:lib/start.js#start']);
    });

    it('keeps same-named methods of two object literals apart (JavaScript has no overloads)', async () => {
      assert.deepEqual(await callersOf(h, 'function:lib/fail.mjs#fail'), ['function:lib/plugins.mjs#validate', 'function:lib/plugins.mjs#validate#2']);
    });

    it('makes `exports.f = function` the function f, called through the module and through a copied alias', async () => {
      assert.deepEqual(await callersOf(h, 'function:lib/utils.js#compile'), ['function:lib/main.js#run', 'method:lib/app.js#app.handle']);
      assert.deepEqual(await callersOf(h, 'function:lib/utils.js#normalize'), ['function:lib/utils.js#compile']);
    });
  
    if (typeCheck) {
      it('follows a function copied from a namespace into a local, by member or destructuring', async () => {
        assert.deepEqual(await callersOf(h, 'function:lib/numbers.mjs#twice'), ['function:lib/calc.mjs#calc']);
        assert.deepEqual(await callersOf(h, 'function:lib/numbers.mjs#half'), ['function:lib/calc.mjs#calc']);
      });
    }
  });
}
