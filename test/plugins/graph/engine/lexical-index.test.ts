import { strict as assert } from 'node:assert';
import { GraphBuilder } from '../../../../plugins/graph/engine/build.ts';
import { LexicalIndex, tokenize } from '../../../../plugins/graph/engine/lexical-index.ts';
import { computePageRank } from '../../../../plugins/graph/engine/stats.ts';
import { extraction, sym } from './helpers.ts';

describe('LexicalIndex', () => {
  it('splits camelCase, snake_case, acronyms and paths into tokens', () => {
    assert.deepEqual(tokenize('parseHTTPRequest_v2'), ['parse', 'http', 'request', 'v2']);
    assert.deepEqual(tokenize('src/graph-engine/lexical_index.ts'), ['src', 'graph', 'engine', 'lexical', 'index', 'ts']);
  });

  function build() {
    const b = new GraphBuilder();
    b.apply({
      upsert: [
        { path: 'net/http_client.py', language: 'python', extraction: extraction('net/http_client.py', 'python', { symbols: [sym('class', 'HTTPConnection', 1, 50, { doc: 'Opens a connection to an HTTP server.' }), sym('method', 'request', 2, 10, { parent: 'HTTPConnection' })] }) },
        { path: 'net/util.py', language: 'python', extraction: extraction('net/util.py', 'python', { symbols: [sym('function', 'parse_headers', 1, 5, { doc: 'Parse header lines.' }), sym('function', 'unrelated', 6, 7)], calls: [] }) },
        { path: 'db/conn.py', language: 'python', extraction: extraction('db/conn.py', 'python', { symbols: [sym('function', 'connect', 1, 5)] }) },
      ],
      remove: [],
    });
    const lx = new LexicalIndex();
    lx.rebuild(b.graph);
    return { b, lx };
  }

  it('ranks nodes by name, qualified name, path and doc tokens', () => {
    const { b, lx } = build();
    const hits = lx.query(b.graph, 'http connection', computePageRank(b.graph).scores);
    assert.equal(hits[0].id, 'class:net/http_client.py#HTTPConnection');
    assert.ok(hits[0].score <= 1 && hits[0].score > 0);
    const byDoc = lx.query(b.graph, 'header', null);
    assert.equal(byDoc[0].id, 'function:net/util.py#parse_headers');
  });

  it('matches prefixes, filters by kind and scope', () => {
    const { b, lx } = build();
    assert.ok(lx.query(b.graph, 'conn', null).some((h) => h.id === 'function:db/conn.py#connect'));
    assert.deepEqual(lx.query(b.graph, 'connect', null, { kinds: ['function'] }).map((h) => h.kind), ['function']);
    assert.ok(lx.query(b.graph, 'connect', null, { scope: 'net' }).every((h) => h.path.startsWith('net/')));
  });

  it('reflects node changes after update and forgets removed nodes', () => {
    const { b, lx } = build();
    b.apply({ upsert: [{ path: 'db/conn.py', language: 'python', extraction: extraction('db/conn.py', 'python', { symbols: [sym('function', 'disconnect', 1, 5)] }) }], remove: ['net/util.py'] });
    lx.sync(b.graph);
    assert.ok(!lx.query(b.graph, 'parse headers', null).some((h) => h.path === 'net/util.py'));
    assert.equal(lx.query(b.graph, 'disconnect', null)[0].id, 'function:db/conn.py#disconnect');
    assert.ok(!lx.query(b.graph, 'connect', null).some((h) => h.id === 'function:db/conn.py#connect'));
  });
});
