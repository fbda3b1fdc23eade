import { strict as assert } from 'node:assert';
import { GraphBuilder } from '../../../../plugins/graph/engine/build.ts';
import { LexicalIndex, tokenize } from '../../../../plugins/graph/engine/lexical-index.ts';
import { computePageRank } from '../../../../plugins/graph/engine/stats.ts';
import { isAccessorOrStub } from '../../../../plugins/graph/engine/lexical-text.ts';
import { extraction, sym } from './helpers.ts';

describe('LexicalIndex', () => {
  it('splits camelCase, snake_case, acronyms and paths into tokens', () => {
    assert.deepEqual(tokenize('parseHTTPRequest_v2'), ['parse', 'http', 'request', 'v2']);
    assert.deepEqual(tokenize('src/graph-engine/lexical_index.ts'), ['src', 'graph', 'engine', 'lexical', 'index', 'ts']);
    // An acronym with a version letter keeps its first letter (IPv6, not Pv6).
    assert.deepEqual(tokenize('IPv6Address'), ['ipv6', 'address']);
    assert.deepEqual(tokenize('parseIPv4'), ['parse', 'ipv4']);
    assert.deepEqual(tokenize('HTTPServer'), ['http', 'server']);
    // A lone capital before a capitalised word prefixes it: GZip is gzip (and zip), never a dropped "g".
    assert.deepEqual(tokenize('GZipDecoder'), ['gzip', 'zip', 'decoder']);
    assert.deepEqual(tokenize('XPathEvaluator'), ['xpath', 'path', 'evaluator']);
    assert.deepEqual(tokenize('getX'), ['get']);
  });

  it('marks stubs (past a docstring or comment: pass, ..., a "not implemented" raise or throw) with accessors as bodies that do no work', () => {
    const body = (text: string) => isAccessorOrStub({ kind: 'method', endLine: 10 + text.split('\n').length - 1 }, 10, () => text);
    assert.ok(body(':\n    """Send a request.\n\n    Long docstring.\n    """\n    x = 1\n    y = 2\n    raise NotImplementedError(\n        "must be implemented"\n    )  # pragma: no cover') === false, 'statements before the raise: work');
    assert.ok(body(':\n    """Send a request.\n\n    Long docstring.\n\n    More.\n    """\n    raise NotImplementedError(\n        "must be implemented"\n    )  # pragma: no cover'));
    assert.ok(body(': ...'));
    assert.ok(body('{\n    // subclasses decide\n    throw new UnsupportedOperationException("nope");\n  }'));
    assert.ok(body('{\n    throw new Error("not implemented");\n  }'));
    assert.ok(!body('{\n    throw new Error("bad input");\n  }'));
    assert.ok(!body(':\n    """Doc."""\n    if not self.ok:\n        raise NotImplementedError\n    return self.go()'));
  });

  it('gives the seek index a word ending in a number with its halves too, and nothing else', () => {
    assert.deepEqual(tokenize('ISO8601Utils', true), ['iso8601', 'iso', '8601', 'utils']);
    assert.deepEqual(tokenize('utf8Decode', true), ['utf8', 'utf', '8', 'decode']);
    assert.deepEqual(tokenize('utf8Decode'), ['utf8', 'decode']);
    assert.deepEqual(tokenize('v2 h2', true), ['v2', 'h2']); // one letter: no halves
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

  /** A graph of `files` files with 3 symbols each, named apart and with shared words; bodies from `texts`. */
  function bigGraph(files: number) {
    const b = new GraphBuilder();
    const texts = new Map<string, string>();
    const upsert = [];
    for (let f = 0; f < files; f++) {
      const path = `pkg${f % 7}/mod${f}.py`;
      texts.set(path, [`def load_item${f}(x):`, `    return parse_record(x, ${f})`, `def store_item${f}(x):`, '    cache.write(x)', `class Reader${f}:`, '    """Reads records lazily."""'].join('\n'));
      upsert.push({
        path,
        language: 'python' as const,
        extraction: extraction(path, 'python', { symbols: [sym('function', `load_item${f}`, 1, 2), sym('function', `store_item${f}`, 3, 4), sym('class', `Reader${f}`, 5, 6, { doc: 'Reads records lazily.' })] }),
      });
    }
    b.apply({ upsert, remove: [] });
    return { b, textOf: (p: string) => texts.get(p) ?? null };
  }

  it('builds in slices that let other callbacks run, with the same ranking as a build at once', async () => {
    const { b, textOf } = bigGraph(120);
    const sliced = new LexicalIndex(textOf);
    let ticks = 0;
    let building = true;
    const tick = (): void => {
      ticks++;
      if (building) setImmediate(tick);
    };
    setImmediate(tick);
    const done = sliced.ensureAsync(b.graph, 0);
    assert.equal(sliced.buildInProgress, true);
    await done;
    building = false;
    assert.equal(sliced.buildInProgress, false);
    // 481 nodes at 64 per step, one step per slice: other callbacks ran between the slices.
    assert.ok(ticks >= 5, `only ${ticks} callbacks ran during the build`);
    const whole = new LexicalIndex(textOf);
    whole.rebuild(b.graph);
    assert.deepEqual(sliced.stats(), whole.stats());
    for (const q of ['load item 17', 'parse record', 'reader lazily', 'cache write']) {
      assert.deepEqual(sliced.query(b.graph, q, null), whole.query(b.graph, q, null), q);
    }
    assert.equal(sliced.query(b.graph, 'store_item42', null)[0].id, 'function:pkg0/mod42.py#store_item42');
  });

  it('finishes a sliced build at once when queried meantime, and restarts it when the graph changes', async () => {
    const { b, textOf } = bigGraph(60);
    const lx = new LexicalIndex(textOf);
    const pending = lx.ensureAsync(b.graph, 0);
    assert.equal(lx.query(b.graph, 'load item 7', null)[0].id, 'function:pkg0/mod7.py#load_item7');
    assert.equal(lx.buildInProgress, false);
    await pending;
    const again = lx.ensureAsync(b.graph, 0);
    b.apply({ upsert: [{ path: 'late.py', language: 'python', extraction: extraction('late.py', 'python', { symbols: [sym('function', 'arrived_late', 1, 2)] }) }], remove: [] });
    await again;
    const fresh = new LexicalIndex(textOf);
    const restarted = new LexicalIndex(textOf);
    const r = restarted.ensureAsync(b.graph, 0);
    b.apply({ upsert: [{ path: 'later.py', language: 'python', extraction: extraction('later.py', 'python', { symbols: [sym('function', 'arrived_later', 1, 2)] }) }], remove: [] });
    await r;
    fresh.rebuild(b.graph);
    assert.equal(restarted.query(b.graph, 'arrived later', null)[0]?.id, 'function:later.py#arrived_later');
    assert.deepEqual(restarted.query(b.graph, 'arrived', null), fresh.query(b.graph, 'arrived', null));
    assert.equal(lx.query(b.graph, 'arrived late', null)[0]?.id, 'function:late.py#arrived_late');
  });

  it('stops a sliced build when reset (the graph was replaced)', async () => {
    const { b, textOf } = bigGraph(60);
    const lx = new LexicalIndex(textOf);
    const pending = lx.ensureAsync(b.graph, 0);
    lx.reset();
    await pending;
    assert.equal(lx.buildInProgress, false);
    assert.equal(lx.liveDocs, 0);
  });
});
