import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import type { GraphNode, NodeKind } from '../../../../plugins/graph/engine/graph-schema.ts';
import { FieldScanner } from '../../../../plugins/graph/engine/lexical-fields.ts';
import { FIELDS, nodeFields, type FieldName } from '../../../../plugins/graph/engine/lexical-text.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';

const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

/** The scanner's fields as nodeFields' shape: per field, [term, count] in order; then whether the body is an accessor's. */
function scanned(scanner: FieldScanner, node: GraphNode): [string, number][][] {
  scanner.scanNode(node);
  const fields = scanner.fields.map((f) => Array.from({ length: f.length }, (_, k) => [scanner.termStrings[f.terms[k]], f.counts[k]] as [string, number]));
  return [...fields, [['accessor', Number(scanner.accessor)]]];
}

function reference(node: GraphNode, text: string | null): [string, number][][] {
  const f = nodeFields(node, text === null ? null : text.split('\n'));
  return [...FIELD_NAMES.map((name) => [...f[name]]), [['accessor', Number(f.accessor)]]];
}

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['parse', 'looks', 'up', 'shut', 'down', 'HTTPRequest', 'retry_delay', 'is', 'the', 'self', 'return', 'backoffDelay2', 'x', 'v2', 'ledger', 'Reconciliation', 'found', 'callable', 'isDraftable', 'über', 'naïve', 'a_very_long_identifier_name', 'def', 'function', 'const', '42', 'parsing', 'parsed', 'Errors'];
const SEPS = [' ', '.', '(', ')', ':', '{', '}', '=>', '\n', '\t', '_', '-', '/', '# ', ', ', ' = ', '\r\n', '…'];

function text(rnd: () => number, words: number): string {
  let s = '';
  for (let k = 0; k < words; k++) {
    // Many distinct terms too (a body keeps its 40 most frequent), repeated unevenly.
    const word = rnd() < 0.5 ? WORDS[Math.floor(rnd() * WORDS.length)] : `term${Math.floor(rnd() * rnd() * 300)}Word`;
    s += word + SEPS[Math.floor(rnd() * SEPS.length)];
  }
  return s;
}

describe('FieldScanner (the seek index full build’s fields)', function () {
  this.timeout(120_000);

  it('gives nodeFields’ terms, counts and order for random nodes and files', () => {
    const rnd = random(7);
    const kinds: NodeKind[] = ['function', 'method', 'class', 'section', 'file', 'module', 'variable' as NodeKind];
    const files = new Map<string, string>();
    for (let f = 0; f < 40; f++) files.set(`pkg${f % 4}/mod_${f}.${['py', 'ts', 'go', 'md'][f % 4]}`, text(rnd, 50 + Math.floor(rnd() * 3000)));
    const paths = [...files.keys()];
    const scanner = new FieldScanner((p) => files.get(p) ?? null);
    // A table that starts afresh every 50 words (what a huge graph's build does past its bound) gives the same fields.
    const forgetful = new FieldScanner((p) => files.get(p) ?? null, 50);
    let accessors = 0;
    for (let i = 0; i < 3000; i++) {
      const path = paths[Math.floor(i / 75) % paths.length];
      const kind = kinds[Math.floor(rnd() * kinds.length)];
      const startLine = 1 + Math.floor(rnd() * 60);
      const node: GraphNode = {
        id: `n${i}`,
        kind,
        label: kind === 'file' ? `${text(rnd, 1).trim()}.py` : text(rnd, 1 + Math.floor(rnd() * 2)).trim(),
        path,
        startLine,
        // Some spans short enough for an accessor's body (isAccessorOrStub), most long.
        endLine: startLine + Math.floor(rnd() * (rnd() < 0.3 ? 5 : 400)),
        language: 'python',
        qualifiedName: rnd() < 0.7 ? `${text(rnd, 2).replace(/\s/g, '')}.${text(rnd, 1).trim()}` : undefined,
        doc: rnd() < 0.5 ? text(rnd, Math.floor(rnd() * 200)) : undefined,
        text: rnd() < 0.2 ? text(rnd, Math.floor(rnd() * 500)) : undefined,
      };
      const expected = reference(node, files.get(path)!);
      assert.deepEqual(scanned(scanner, node), expected, `node ${i} (${kind})`);
      assert.deepEqual(scanned(forgetful, node), expected, `node ${i} (${kind}), bounded word table`);
      accessors += expected[expected.length - 1][0][1];
    }
    assert.ok(accessors > 10, `${accessors} accessor bodies among the random nodes`);
  });

  it('gives nodeFields’ fields for every node of an ingested Python, TypeScript, Go and Markdown repository', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) {
      files[`svc/ledger_${i}.py`] = `class Ledger${i}:\n    """Keeps the ledger of shard ${i}: entries, totals and their audit."""\n\n    def reconcile(self, entries, shard: int) -> int:\n        total = sum(e.amount for e in entries)\n        if total > ${i}:\n            raise ValueError("over")\n        return total + shard\n`;
      files[`web/invoice${i}.ts`] = `/** Renders invoice ${i} as HTML. */\nexport function renderInvoice${i}(amount: number, currency: string): string {\n  const parts = [amount, currency].map((x) => String(x));\n  return '<p>' + parts.join(' ') + '</p>';\n}\n`;
      files[`go/retry${i}.go`] = `package retry\n\n// BackoffDelay${i} computes the retry delay.\nfunc BackoffDelay${i}(attempt int) int {\n\treturn attempt * ${i}\n}\n`;
    }
    files['docs/guide.md'] = `# Guide\n\nHow the ledger is reconciled.\n\n## Retry\n\n${'The backoff delay grows with every attempt of the request. '.repeat(40)}\n`;
    const root = writeWorkspace(files, 'm1nd-lexical-fields-');
    const e = new CodeGraphEngine({ root, gitMaxCommits: 0, typeCheck: false, parseWorkers: 0 });
    try {
      await e.open();
      await e.ingest({});
      const read = (p: string): string | null => {
        try {
          return readFileSync(join(root, p), 'utf8');
        } catch {
          return null;
        }
      };
      const scanner = new FieldScanner(read);
      let checked = 0;
      for (let i = 0; i < e.graph.nodeCapacity; i++) {
        const n = e.graph.node(i);
        if (!n) continue;
        assert.deepEqual(scanned(scanner, n), reference(n, read(n.path)), n.id);
        checked++;
      }
      assert.ok(checked > 150, `${checked} nodes`);
      // The Go one-liner only computes; the TypeScript and Python bodies call.
      assert.equal(nodeFields(e.graph.get('function:go/retry3.go#BackoffDelay3')!, read('go/retry3.go')!.split('\n')).accessor, true);
      assert.equal(nodeFields(e.graph.get('function:web/invoice3.ts#renderInvoice3')!, read('web/invoice3.ts')!.split('\n')).accessor, false);
      assert.equal(nodeFields(e.graph.get('method:svc/ledger_3.py#Ledger3.reconcile')!, read('svc/ledger_3.py')!.split('\n')).accessor, false);
    } finally {
      await e.close();
      removeWorkspace(root);
    }
  });
});
