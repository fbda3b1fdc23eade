import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

// Found in the stop-66 sweep: a rule stops at 200 matches in one file, and scan, scan_all and
// antibody_scan reported the 200 as the total with nothing saying more were left unread.
describe('scan and antibody_scan at the per-file match limit', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    const ws = tempDir('m1nd-file-cap-');
    mkdirSync(join(ws, 'src'));
    const calls = Array.from({ length: 250 }, (_, i) => `  cache.clear(); // ${i}`).join('\n');
    writeFileSync(join(ws, 'src/many.ts'), `export function wipe(cache: Map<string, number>): void {\n${calls}\n}\n`);
    writeFileSync(join(ws, 'src/few.ts'), 'export function wipeOnce(cache: Map<string, number>): void {\n  cache.clear();\n}\n');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: '.' });
  });
  after(() => h?.close());

  const query = '(call_expression function: (member_expression property: (property_identifier) @p (#eq? @p "clear"))) @hit';

  it('scan names the file whose matches stopped at the limit, and none that did not reach it', async () => {
    const r = (await h.call('scan', { agent_id: 'a', pattern: 'custom', language: 'typescript', query, severity_min: 0, graph_validate: false })).json;
    assert.equal(r.total, 201, 'the limit in src/many.ts and the one call in src/few.ts');
    assert.deepEqual(r.files_capped, { limit: 200, count: 1, sample: [{ file: 'src/many.ts', rule: r.files_capped.sample[0].rule }] });
  });

  it('antibody_scan says a query antibody stopped at the limit in a file', async () => {
    const ab = (await h.call('antibody_create', { agent_id: 'a', name: 'cache cleared wholesale', pattern: { language: 'typescript', query } })).json;
    const r = (await h.call('antibody_scan', { agent_id: 'a', max_matches_per_antibody: 200 })).json;
    assert.equal(r.total, 201);
    assert.deepEqual(r.files_capped, { limit: 200, count: 1, sample: [{ file: 'src/many.ts', rule: ab.antibody.id }] });
  });

  it('says nothing when no file reaches the limit', async () => {
    const r = (await h.call('scan', { agent_id: 'a', pattern: 'custom', language: 'typescript', query, scope: 'src/few.ts', severity_min: 0 })).json;
    assert.equal(r.total, 1);
    assert.equal(r.files_capped, undefined);
  });
});
