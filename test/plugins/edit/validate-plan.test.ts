import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

describe('validate_plan', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('finds the dependent missing from a plan, and no gap once it is planned; tests come from tests edges', async () => {
    const alone = (await h.call('validate_plan', { agent_id: 'a', actions: [{ action_type: 'modify', file_path: 'src/math.ts' }] })).json;
    assert.deepEqual(alone.gaps, [{ file_path: 'src/cart.ts', depends_on_planned: ['src/math.ts'] }]);
    assert.deepEqual(alone.actions[0].blast_radius.by_hop, [1, 0, 0]);
    assert.deepEqual(alone.actions[0].tests, [], 'the cart test tests cart.ts, not math.ts');
    // …but it calls total(), which calls add(): it reaches math.ts through its dependent, and is the test to run.
    assert.deepEqual(alone.actions[0].tests_via_dependents, { total: 1, sample: [{ file_path: 'tests/cart.test.ts', hop: 2 }] });
    assert.deepEqual(alone.tests_to_run, ['tests/cart.test.ts']);
    assert.ok(alone.risk.reasons.includes('no test calls src/math.ts directly; 1 test file(s) reach it through its dependents'), alone.risk.reasons.join(' | '));
    assert.ok(alone.risk.reasons.includes('1 directly dependent file(s) are not in the plan'));

    const both = (await h.call('validate_plan', { agent_id: 'a', actions: [{ action_type: 'modify', file_path: 'src/math.ts' }, { action_type: 'modify', file_path: 'src/cart.ts', depends_on: ['src/math.ts'] }] })).json;
    assert.deepEqual(both.gaps, []);
    assert.deepEqual(both.tests_to_run, ['tests/cart.test.ts']);
    assert.ok(both.risk.score < alone.risk.score, `${both.risk.score} < ${alone.risk.score}`);
  });

  it('counts only dependents and tests inside scope when given, saying how many were left out', async () => {
    const elsewhere = (await h.call('validate_plan', { agent_id: 'a', scope: 'go', actions: [{ action_type: 'modify', file_path: 'src/math.ts' }] })).json;
    assert.deepEqual(elsewhere.gaps, [], 'cart.ts is outside go/');
    assert.equal(elsewhere.actions[0].blast_radius.files, 0);
    assert.equal(elsewhere.actions[0].blast_radius.outside_scope, 1);
    const inside = (await h.call('validate_plan', { agent_id: 'a', scope: 'src', actions: [{ action_type: 'modify', file_path: 'src/math.ts' }] })).json;
    assert.deepEqual(inside.gaps, [{ file_path: 'src/cart.ts', depends_on_planned: ['src/math.ts'] }]);
    assert.equal(inside.actions[0].blast_radius.outside_scope, 0);
    const escape = await h.call('validate_plan', { agent_id: 'a', scope: '../', actions: [{ action_type: 'modify', file_path: 'src/math.ts' }] });
    assert.equal(escape.json.error.code, 'M1ND_ERR_PATH_ESCAPE');
  });

  it('scores a delete with dependents higher and reports impossible actions', async () => {
    const del = (await h.call('validate_plan', { agent_id: 'a', actions: [{ action_type: 'delete', file_path: 'src/math.ts' }] })).json;
    assert.match(del.risk.reasons[0], /deleting src\/math\.ts breaks 1 file/);
    const modify = (await h.call('validate_plan', { agent_id: 'a', actions: [{ action_type: 'modify', file_path: 'src/math.ts' }] })).json;
    assert.ok(del.risk.score > modify.risk.score);
    const odd = (await h.call('validate_plan', { agent_id: 'a', actions: [{ action_type: 'create', file_path: 'src/cart.ts' }, { action_type: 'modify', file_path: 'src/none.ts', depends_on: ['src/other.ts'] }] })).json;
    assert.deepEqual(odd.actions[0].issues, ['the file already exists (modify it instead?)']);
    assert.deepEqual(odd.actions[1].issues, ['no such file', 'depends_on "src/other.ts" is not an action of this plan']);
  });
});

describe('validate_plan: tests reached through dependents', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), {
      'src/fmt.ts': `export function fmt(n: number): string {\n  return String(n);\n}\n`,
      'src/other.ts': `export function other(): number {\n  return 1;\n}\n`,
      'src/index.ts': `export { fmt } from './fmt.ts';\nexport { other } from './other.ts';\n`,
      // Imports the entry file, which re-exports fmt, but never runs fmt.
      'tests/other.test.ts': `import { other } from '../src/index.ts';\n\nexport function testOther(): boolean {\n  return other() === 1;\n}\n`,
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('does not count a test that only imports an entry file re-exporting the module as reaching it', async () => {
    const plan = (await h.call('validate_plan', { agent_id: 'a', actions: [{ action_type: 'modify', file_path: 'src/fmt.ts' }] })).json;
    assert.deepEqual(plan.actions[0].tests, []);
    assert.deepEqual(plan.actions[0].tests_via_dependents, { total: 0, sample: [] });
    assert.deepEqual(plan.tests_to_run, []);
    assert.ok(plan.risk.reasons.includes('no test covers src/fmt.ts'), plan.risk.reasons.join(' | '));
  });
});
