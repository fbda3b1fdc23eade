import assert from 'node:assert/strict';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

/**
 * Names an agent mistypes, in files whose ids sort so that an answer ordered by id alone (or by the
 * words a typo still shares with other names) would put another node first.
 */
const FILES: Record<string, string> = {
  'a/parser.py': `class HeaderParser:
    def parsestr(self, text):
        return text


class Parser:
    def parsestr(self, text):
        return text.strip()


def load(path):
    return open(path).read()
`,
  'a/headers.py': `class Message:
    def headers(self):
        return []

    def header_items(self):
        return self.headers()
`,
  'z/parser.py': `def parse_line(line):
    return line.split()
`,
  'a/spec.py': `class FieldSpec:
    class Builder:
        def build(self):
            return FieldSpec()

    def builder(self):
        return FieldSpec.Builder()
`,
};

async function suggestions(h: Harness, nodeId: string): Promise<string[]> {
  const res = await h.call('impact', { agent_id: 'q', node_id: nodeId });
  assert.equal(res.result.isError, true, `${nodeId} should match no node`);
  assert.equal(res.json.error.code, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND');
  return res.json.error.detail.suggestions;
}

describe('did-you-mean after a typo in a node argument', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture({ files: FILES });
  });
  after(() => h.close());

  it('names the mistyped class first, before members sharing a word with it', async () => {
    const got = await suggestions(h, 'HeaderParsr');
    assert.equal(got[0], 'class:a/parser.py#HeaderParser');
  });

  it('puts the method of the class and file the argument named first', async () => {
    assert.equal((await suggestions(h, 'a/parser.py#Parser.parsestrr'))[0], 'method:a/parser.py#Parser.parsestr');
    assert.equal((await suggestions(h, 'Parser.parsestrr'))[0], 'method:a/parser.py#Parser.parsestr', 'the qualified name matched whole beats its last segment');
  });

  it('counts two swapped letters as one slip, even in a short name', async () => {
    assert.equal((await suggestions(h, 'laod'))[0], 'function:a/parser.py#load');
  });

  it('prefers the file in the directory the path named', async () => {
    assert.equal((await suggestions(h, 'z/parsr.py'))[0], 'file:z/parser.py');
    assert.equal((await suggestions(h, 'a/parsr.py'))[0], 'file:a/parser.py');
  });

  it('breaks a tie between names differing in case by the case typed', async () => {
    assert.equal((await suggestions(h, 'FieldSpec.buildr'))[0], 'method:a/spec.py#FieldSpec.builder');
    assert.equal((await suggestions(h, 'FieldSpec.Buildr'))[0], 'class:a/spec.py#FieldSpec.Builder');
  });

  it('keeps the words first for free text (no typo to correct there)', async () => {
    assert.equal((await suggestions(h, 'split a line'))[0], 'function:z/parser.py#parse_line');
  });

  it('names the file a mistyped path meant in view, surgical_context and batch_view', async () => {
    for (const [verb, args] of [
      ['view', { file_path: 'z/parsr.py' }],
      ['surgical_context', { file_path: 'z/parsr.py' }],
    ] as const) {
      const res = await h.call(verb, { agent_id: 'q', ...args });
      assert.equal(res.json.error.code, 'M1ND_ERR_PATH_NOT_FOUND', verb);
      assert.match(res.json.error.hint, /^did you mean "z\/parser\.py"/, verb);
    }
    const batch = (await h.call('batch_view', { agent_id: 'q', files: ['z/parsr.py'] })).json;
    assert.match(batch.files[0].error, /no file "z\/parsr\.py"/);
    assert.match(batch.files[0].hint, /^did you mean "z\/parser\.py"/);
    assert.deepEqual(batch.graph, { in_graph: false, reingested: false, note: 'no such file' }, 'nothing to ingest for a path with no file: no ingest, no claim about its language');
  });

  it('leads seek with the names a mistyped identifier meant, and leaves names spelt right and free text to the words', async () => {
    const seek = async (query: string, extra: object = {}) => (await h.call('seek', { agent_id: 'q', query, top_k: 5, ...extra })).json.results as { id: string; why: Record<string, unknown> }[];
    const slip = await seek('HeaderParsr.parsestr');
    assert.equal(slip[0].id, 'method:a/parser.py#HeaderParser.parsestr', JSON.stringify(slip));
    assert.equal(slip[0].why.near_name, true);
    assert.equal((await seek('FieldSpec.buildr'))[0].id, 'method:a/spec.py#FieldSpec.builder');
    assert.equal((await seek('header_itmes'))[0].id, 'method:a/headers.py#Message.header_items');
    // The kinds and the scope asked for hold for the near names too.
    assert.ok(!(await seek('HeaderParsr', { node_types: ['function'] })).some((r) => r.id === 'class:a/parser.py#HeaderParser'));
    assert.ok(!(await seek('HeaderParsr', { scope: 'z' })).some((r) => r.id === 'class:a/parser.py#HeaderParser'));
    // Spelt right: the words' own ranking, unmarked; free text and a lone lower-case word are no identifiers.
    const right = await seek('HeaderParser');
    assert.equal(right[0].id, 'class:a/parser.py#HeaderParser');
    assert.equal(right[0].why.near_name, undefined);
    for (const q of ['split a line', 'parsr']) assert.ok((await seek(q)).every((r) => r.why.near_name === undefined), q);
  });
});
