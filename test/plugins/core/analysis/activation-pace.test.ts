import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { activateQuery, activationReady, DIMENSIONS, type ActivationRequest } from '../../../../plugins/core/analysis/query-activation.ts';
import type { GraphService } from '../../../../plugins/graph/service.ts';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

const FILES: Record<string, string> = {
  'ledger/post.py': `from ledger.book import Book


def post_entry(book, entry):
    book.add(entry)
    return reconcile(book)


def reconcile(book):
    return sum(book.entries)
`,
  'ledger/book.py': `class Book:
    def __init__(self):
        self.entries = []

    def add(self, entry):
        self.entries.append(entry)
`,
};

const REQUEST: ActivationRequest = { query: 'post a ledger entry and reconcile the book', agentId: 'a', dimensions: [...DIMENSIONS], topK: 10, xlr: true, ghostEdges: true };

describe('activation paced between its phases', function () {
  this.timeout(60000);
  let h: Harness;
  let service: GraphService;
  before(async () => {
    h = await ingestedFixture({ files: FILES, watch: false });
    service = h.host.current.services.get('graph')!.impl as GraphService;
    await activationReady(service.engine);
  });
  after(() => h.close());

  it('gives the event loop a turn between phases and answers as an unpaced run does', async () => {
    let paces = 0;
    const paced = await activateQuery(service, service.engine, REQUEST, async () => {
      paces++;
      await new Promise((r) => setImmediate(r));
    });
    const oneGo = await activateQuery(service, service.engine, REQUEST, () => Promise.resolve());
    assert.ok(paces >= 4, `seeds, structural spread, hub cancelling and the causal spreads each end at a pace: ${paces}`);
    assert.deepEqual(
      paced.results.map((r) => [r.node.id, r.score]),
      oneGo.results.map((r) => [r.node.id, r.score]),
    );
    assert.ok(paced.results.some((r) => r.node.id === 'function:ledger/post.py#reconcile'));
  });

  it('lets two activations overlap at their paces without mixing their scores', async () => {
    const other: ActivationRequest = { ...REQUEST, query: 'book entries list' };
    const alone = [await activateQuery(service, service.engine, REQUEST), await activateQuery(service, service.engine, other)];
    const slow = async () => void (await new Promise((r) => setTimeout(r, 2)));
    const together = await Promise.all([activateQuery(service, service.engine, REQUEST, slow), activateQuery(service, service.engine, other, slow)]);
    for (let k = 0; k < 2; k++)
      assert.deepEqual(
        together[k].results.map((r) => [r.node.id, r.score]),
        alone[k].results.map((r) => [r.node.id, r.score]),
      );
  });

  it('starts again on the new graph when an ingest lands during a pace', async () => {
    let landed = false;
    const outcome = await activateQuery(service, service.engine, { ...REQUEST, query: 'audit the ledger trail' }, async () => {
      if (landed) return;
      landed = true;
      writeFileSync(join(h.workspace, 'ledger/audit.py'), 'def audit_trail(ledger):\n    return [e for e in ledger]\n');
      await service.engine.ingest({ paths: ['ledger/audit.py'] });
    });
    assert.ok(landed);
    assert.ok(
      outcome.results.some((r) => r.node.id === 'function:ledger/audit.py#audit_trail'),
      `the run that finished is of the graph with the new file: ${outcome.results.map((r) => r.node.id)}`,
    );
  });
});
