/**
 * A private claim never reaches the team store (docs/team-store.md): neither does the alert the
 * daemon raises when it turns stale — its text, its author and its audience stay on this machine.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { freshDatabase, pgOrSkip } from '../../helpers/pg.ts';

describe('daemon alerts of private claims with a team store', function () {
  this.timeout(120_000);
  let url: string;
  let h: Harness | undefined;
  let db: pg.Client | undefined;
  before(async function () {
    url = await freshDatabase(await pgOrSkip(this), 'alerts');
  });
  afterEach(async () => {
    await h?.close();
    await db?.end();
    h = db = undefined;
  });

  it("keeps a private claim's stale alert out of the team store, shown to its author only", async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-alerts-private-'));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_STORE_URL: url, M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'ann', path: ws });
    const mine = (await h.call('memorize', { agent_id: 'ann', scope: 'agent', claims: [{ text: 'PRIVATE NOTE: add is the only adder', evidence: ['src/math.ts'] }] })).json.stored[0];
    const team = (await h.call('memorize', { agent_id: 'ann', scope: 'project', claims: [{ text: 'the cart totals with add', evidence: ['src/cart.ts'] }] })).json.stored[0];
    fs.appendFileSync(path.join(ws, 'src/math.ts'), 'export const z = 1;\n');
    fs.appendFileSync(path.join(ws, 'src/cart.ts'), 'export const y = 2;\n');
    const tick = (await h.call('daemon_tick', { agent_id: 'ann' })).json;
    assert.equal(tick.alerts_raised.filter((a: any) => a.kind === 'claim_stale').length, 2, JSON.stringify(tick));

    const ofAnn = (await h.call('alerts_list', { agent_id: 'ann' })).json.alerts.filter((a: any) => a.kind === 'claim_stale');
    assert.deepEqual(ofAnn.map((a: any) => a.details.claim_id).sort(), [mine.id, team.id].sort());
    const ofBob = (await h.call('alerts_list', { agent_id: 'bob' })).json.alerts.filter((a: any) => a.kind === 'claim_stale');
    assert.deepEqual(ofBob.map((a: any) => a.details.claim_id), [team.id]);

    db = new pg.Client({ connectionString: url });
    await db.connect();
    const rows = (await db.query("SELECT value FROM m1nd_state WHERE namespace = 'alerts'")).rows.map((r) => r.value);
    assert.ok(rows.some((v) => v.details?.claim_id === team.id), 'the team claim’s alert is shared');
    assert.ok(!rows.some((v) => v.audience || v.details?.claim_id === mine.id), `no private alert in the team store: ${JSON.stringify(rows)}`);
    assert.ok(!JSON.stringify(rows).includes('PRIVATE NOTE'));

    // Acknowledged by its author, resolved once fresh again, on this machine.
    const alertId = ofAnn.find((a: any) => a.details.claim_id === mine.id).id;
    assert.deepEqual((await h.call('alerts_ack', { agent_id: 'ann', alert_ids: [alertId] })).json.acked, [alertId]);
    assert.deepEqual((await h.call('alerts_ack', { agent_id: 'bob', alert_ids: [alertId] })).json.unknown, [alertId]);
    const status = (await h.call('daemon_status', { agent_id: 'ann' })).json.alerts;
    assert.deepEqual(status, { open: 2, unacked: 1, resolved: 0 });
    fs.writeFileSync(path.join(ws, 'src/math.ts'), fs.readFileSync(path.join(ws, 'src/math.ts'), 'utf8').replace('export const z = 1;\n', ''));
    await h.call('daemon_tick', { agent_id: 'ann' });
    const after = (await h.call('alerts_list', { agent_id: 'ann', include_resolved: true, include_acked: true })).json.alerts.find((a: any) => a.id === alertId);
    assert.equal(after.status, 'resolved');
  });
});
