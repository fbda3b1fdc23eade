import assert from 'node:assert/strict';
import { curateTiers, declaredTierTable } from '../../core/tiers.ts';
import type { VerbRecord } from '../../core/verb.ts';

const verb = (name: string, tiers: string[]) => ({ name, tiers }) as unknown as VerbRecord;
const RECORDS = [verb('seek', ['essential']), verb('impact', ['essential']), verb('diagram', ['full']), verb('triage_note', ['triage'])];
const KNOWN = new Set(RECORDS.map((r) => r.name));
const sorted = (s: Set<string> | undefined) => [...(s ?? [])].sort();

describe('tier curation', () => {
  it('composes extends with the verbs whose registration names the tier', () => {
    const { table, warnings } = curateTiers(declaredTierTable(RECORDS), { triage: { extends: 'essential', remove: ['impact'] } }, KNOWN);
    assert.deepEqual(sorted(table.tiers.get('triage')), ['seek', 'triage_note']);
    assert.deepEqual(warnings, []);
    assert.ok(table.tiers.get('full')!.has('triage_note'), 'full stays the union');
  });

  it('resolves a base tier curated later in the file before the tier that extends it', () => {
    const { table } = curateTiers(declaredTierTable(RECORDS), { review: { extends: 'lean' }, lean: { extends: 'essential', add: ['diagram'], remove: ['seek'] } }, KNOWN);
    assert.deepEqual(sorted(table.tiers.get('review')), ['diagram', 'impact']);
  });

  it('keeps the declared set of a tier curated without extends', () => {
    const { table } = curateTiers(declaredTierTable(RECORDS), { essential: { add: ['diagram'] } }, KNOWN);
    assert.deepEqual(sorted(table.tiers.get('essential')), ['diagram', 'impact', 'seek']);
  });

  it('warns about unknown tiers and verbs, cycles, and contradictions instead of dropping silently', () => {
    const { table, warnings } = curateTiers(
      declaredTierTable(RECORDS),
      {
        a: { extends: 'b' },
        b: { extends: 'a', add: ['seek'] },
        c: { extends: 'nope', add: ['ghost', 'impact'], remove: ['impact', 'diagram'] },
      },
      KNOWN,
    );
    assert.deepEqual(sorted(table.tiers.get('a')), ['seek']);
    assert.deepEqual(sorted(table.tiers.get('c')), []);
    assert.deepEqual(warnings, [
      'tier "a" extends itself through a → b → a; that extends is ignored',
      'tier "c" extends unknown tier "nope"',
      'tier "c" adds unknown verb "ghost"',
      'tier "c" both adds and removes "impact"; it is removed',
      'tier "c" removes "impact", which it does not have',
      'tier "c" removes "diagram", which it does not have',
    ]);
  });
});
