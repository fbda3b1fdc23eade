import assert from 'node:assert/strict';
import { countTokens } from '../../../../core/index.ts';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

const FEATURES = ['billing', 'orders', 'search', 'users'];
const IMPORTERS_PER_FEATURE = 8;

/**
 * A shared util file imported by 32 feature files (each imported again by a page), holding a function
 * nobody calls, a function two features call, and a method called once through `this` and once on a
 * receiver of unknown type (a low-confidence edge).
 */
function fanoutRepo(): Record<string, string> {
  const files: Record<string, string> = {
    'src/core/util.ts': `export function orphan(): number {
  return 1;
}

export function target(x: number): number {
  return x + 1;
}

export class Meter {
  recalcTotals(): number {
    return 0;
  }

  refresh(): number {
    return this.recalcTotals();
  }
}

export function spare(): number {
  return 2;
}
`,
    'src/report/summary.ts': `export function summarize(m: any): number {
  return m.recalcTotals() + 1;
}
`,
  };
  for (const feature of FEATURES) {
    for (let i = 0; i < IMPORTERS_PER_FEATURE; i++) {
      const calls = feature === 'billing' && i < 2;
      files[`src/${feature}/part${i}.ts`] = `import { target } from '../core/util.ts';

export function ${feature}Part${i}(x: number): number {
  const y = x * ${i + 2};
  return ${calls ? 'target(y)' : 'y'};
}
`;
    }
    files[`src/pages/${feature}.ts`] = `import { ${feature}Part0 } from '../${feature}/part0.ts';

export function ${feature}Page(): number {
  return ${feature}Part0(1);
}
`;
  }
  return files;
}

describe('impact sized for an agent', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    // The guessed edge is the name-based resolver's: the TS checker (off here) links nothing through `any`.
    h = await ingestedFixture({ files: fanoutRepo(), typeCheck: false });
  });
  after(() => h.close());

  it('a function nobody calls in a file 32 files import: 0 direct dependents and the fan-out counted, under 2K tokens', async () => {
    const { result, json } = await h.call('impact', { agent_id: 'q', node_id: 'function:src/core/util.ts#orphan', direction: 'reverse' });
    const text = result.content[0].type === 'text' ? result.content[0].text : '';
    const tokens = countTokens(text);
    assert.ok(tokens < 2000, `answer is ${tokens} tokens`);
    assert.deepEqual(json.direct, []);
    assert.equal(json.affected, 0, 'importers of its file are fan-out, not affected');
    assert.equal(json.other_files, 0);
    assert.deepEqual(json.structure, ['file:src/core/util.ts'], 'the enclosing file is structure, not a dependent');
    assert.equal(json.import_fanout.files, FEATURES.length * (IMPORTERS_PER_FEATURE + 1), 'every importer and every page importing one');
    assert.deepEqual(json.import_fanout.by_directory, { 'src/billing': 8, 'src/orders': 8, 'src/search': 8, 'src/users': 8, 'src/pages': 4 });
    assert.deepEqual(json.import_fanout.by_depth, { 2: 32, 3: 4 });
    assert.equal(json.import_fanout.entries, undefined, 'counted, not listed');
    assert.equal(json.omitted.import_fanout, 36);
    assert.match(json.omitted.how, /detail: "full"/);
  });

  it('lists the whole fan-out one parameter away (detail: full), each file with its chain', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'function:src/core/util.ts#orphan', direction: 'reverse', detail: 'full' });
    assert.equal(json.import_fanout.entries.length, 36);
    const depths = json.import_fanout.entries.map((e: { depth: number }) => e.depth);
    assert.deepEqual(depths, [...depths].sort((a, b) => a - b), 'nearest first');
    const page = json.import_fanout.entries.find((e: { id: string }) => e.id === 'file:src/pages/orders.ts');
    assert.equal(page.depth, 3);
    assert.deepEqual(page.chain, ['function:src/core/util.ts#orphan', '<-contains-', 'file:src/core/util.ts', '<-imports-', 'file:src/orders/part0.ts', '<-imports-', 'file:src/pages/orders.ts']);
    assert.equal(json.omitted, undefined, 'nothing left out');
  });

  it('a function with known callers lists exactly them first, with relation, confidence and the call line', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'function:src/core/util.ts#target', direction: 'reverse' });
    assert.deepEqual(
      json.direct.map((d: { id: string; relation: string; confidence: number; line: number }) => [d.id, d.relation, d.confidence, d.line]),
      [
        ['function:src/billing/part0.ts#billingPart0', 'calls', 1, 5],
        ['function:src/billing/part1.ts#billingPart1', 'calls', 1, 5],
      ],
    );
    const billingPage = json.transitive.entries.find((e: { id: string }) => e.id === 'function:src/pages/billing.ts#billingPage');
    assert.equal(billingPage.depth, 2, 'the page calling a caller is transitive, at depth 2');
    assert.equal(billingPage.weakest, 1);
    assert.ok(json.import_fanout.files >= 30, 'the other importers of util.ts are only counted');
    assert.ok(!json.transitive.entries.some((e: { id: string }) => e.id.startsWith('file:src/orders/')), 'no importer is listed as a dependent');
  });

  it('shows a low-confidence caller and min_confidence drops it, from direct and from the walk', async () => {
    const all = (await h.call('impact', { agent_id: 'q', node_id: 'src/core/util.ts#Meter.recalcTotals', direction: 'reverse' })).json;
    const byId = new Map(all.direct.map((d: { id: string; confidence: number }) => [d.id, d.confidence]));
    assert.deepEqual([...byId.keys()].sort(), ['function:src/report/summary.ts#summarize', 'method:src/core/util.ts#Meter.refresh']);
    assert.equal(byId.get('method:src/core/util.ts#Meter.refresh'), 1, 'this.recalcTotals() is certain');
    const low = byId.get('function:src/report/summary.ts#summarize') as number;
    assert.ok(low > 0 && low < 0.9, `m.recalcTotals() on an unknown receiver is a guess (${low})`);
    const sure = (await h.call('impact', { agent_id: 'q', node_id: 'src/core/util.ts#Meter.recalcTotals', direction: 'reverse', min_confidence: 0.9 })).json;
    assert.deepEqual(sure.direct.map((d: { id: string }) => d.id), ['method:src/core/util.ts#Meter.refresh']);
    assert.equal(sure.min_confidence, 0.9);
    const ids = [...sure.transitive.entries, ...sure.direct].map((e: { id: string }) => e.id);
    assert.ok(!ids.some((id) => id.includes('summary.ts')), 'nothing reached through the dropped edge');
  });

  it('why shows the confidence of each step and min_confidence keeps a guessed edge out of the path', async () => {
    const { json } = await h.call('why', { agent_id: 'q', source: 'summarize', target: 'src/core/util.ts#Meter.recalcTotals' });
    const best = json.paths[0];
    assert.equal(best.line, 'summarize -calls-> recalcTotals');
    assert.ok(best.steps[0].confidence < 0.9);
    assert.equal(best.weakest, best.steps[0].confidence);
    const sure = (await h.call('why', { agent_id: 'q', source: 'summarize', target: 'src/core/util.ts#Meter.recalcTotals', min_confidence: 0.9 })).json;
    assert.equal(sure.found, false);
    assert.match(sure.note, /lower min_confidence/);
    const certain = (await h.call('why', { agent_id: 'q', source: 'Meter.refresh', target: 'src/core/util.ts#Meter.recalcTotals', min_confidence: 0.9 })).json;
    assert.deepEqual(certain.paths[0].steps.map((s: { confidence: number }) => s.confidence), [1]);
  });

  it('counterfactual shows the confidence of each broken dependent and min_confidence drops the guessed one', async () => {
    const all = (await h.call('counterfactual', { agent_id: 'q', node_ids: ['src/core/util.ts#Meter.recalcTotals'] })).json;
    const byId = new Map(all.broken.map((b: { id: string; confidence: number }) => [b.id, b.confidence]));
    // The class that contains the method loses a part; it depends on nothing removed, so it is not broken.
    assert.deepEqual([...byId.keys()].sort(), ['function:src/report/summary.ts#summarize', 'method:src/core/util.ts#Meter.refresh']);
    assert.equal(byId.get('method:src/core/util.ts#Meter.refresh'), 1);
    assert.ok((byId.get('function:src/report/summary.ts#summarize') as number) < 0.9);
    const sure = (await h.call('counterfactual', { agent_id: 'q', node_ids: ['src/core/util.ts#Meter.recalcTotals'], min_confidence: 0.9 })).json;
    assert.deepEqual(sure.broken.map((b: { id: string }) => b.id).sort(), ['method:src/core/util.ts#Meter.refresh']);
    assert.equal(sure.broken_count, 1);
    assert.ok(!sure.cascade.some((c: { id: string }) => c.id.includes('summary.ts')), 'the cascade does not cross the dropped edge');
  });

  it('type_trace shows the confidence of the edge behind each use and min_confidence drops the guessed one', async () => {
    const all = (await h.call('type_trace', { agent_id: 'q', target: 'Meter', group_by_file: false })).json;
    const use = all.uses.find((u: { id: string }) => u.id === 'function:src/report/summary.ts#summarize');
    assert.equal(use.use, 'construction or call');
    assert.ok(use.confidence > 0 && use.confidence < 0.9, `a call on an unknown receiver (${use.confidence})`);
    const sure = (await h.call('type_trace', { agent_id: 'q', target: 'Meter', group_by_file: false, min_confidence: 0.9 })).json;
    assert.ok(!sure.uses.some((u: { id: string }) => u.id.includes('summary.ts')));
  });

  it('diagram labels a guessed edge with its confidence and min_confidence leaves it out', async () => {
    const all = (await h.call('diagram', { agent_id: 'q', center: 'summarize', depth: 1 })).json;
    const key = (id: string) => all.nodes.find((n: { id: string }) => n.id === id)?.key;
    const edge = new RegExp(`${key('function:src/report/summary.ts#summarize')} -->\\|calls 0\\.\\d+\\| ${key('method:src/core/util.ts#Meter.recalcTotals')}`);
    assert.match(all.diagram, edge);
    const sure = (await h.call('diagram', { agent_id: 'q', center: 'summarize', depth: 1, min_confidence: 0.9 })).json;
    assert.ok(!sure.nodes.some((n: { id: string }) => n.id.includes('recalcTotals')), sure.diagram);
  });

  it('forward from a file lists a few of its parts as structure and counts the rest', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'src/core/util.ts', direction: 'forward' });
    assert.equal(json.structure.length, 5);
    assert.equal(json.omitted.structure, 1, 'orphan, target, spare, Meter and its two methods: six parts');
    const full = (await h.call('impact', { agent_id: 'q', node_id: 'src/core/util.ts', direction: 'forward', detail: 'full' })).json;
    assert.deepEqual([...full.structure].sort(), [
      'class:src/core/util.ts#Meter',
      'function:src/core/util.ts#orphan',
      'function:src/core/util.ts#spare',
      'function:src/core/util.ts#target',
      'method:src/core/util.ts#Meter.recalcTotals',
      'method:src/core/util.ts#Meter.refresh',
    ]);
  });

  it('summary keeps to top_k and the token budget and counts what it left out', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'file:src/core/util.ts', direction: 'reverse', top_k: 5 });
    assert.equal(json.direct.length, 5, 'the 32 importers are direct dependents of the file itself');
    assert.equal(json.omitted.direct, 27);
    assert.ok(json.direct.every((d: { relation: string; line: number }) => d.relation === 'imports' && d.line === 1));
    const tight = (await h.call('impact', { agent_id: 'q', node_id: 'file:src/core/util.ts', direction: 'reverse', token_budget: 100 })).json;
    assert.ok(tight.listed_tokens <= 100 && tight.direct.length >= 1 && tight.direct.length < 5, JSON.stringify(tight.direct));
    assert.equal(tight.omitted.direct, 32 - tight.direct.length);
  });

  it('refuses a token budget above its bound before any work, naming the parameter', async () => {
    const { result, json } = await h.call('impact', { agent_id: 'q', node_id: 'file:src/core/util.ts', token_budget: 20_001 });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(json), /token_budget/);
  });
});
