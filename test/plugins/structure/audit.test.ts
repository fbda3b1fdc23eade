import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { git, touch } from '../history/git-fixture.ts';
import { LAYERED_FILES } from './layered-repo.ts';

const FILES = {
  ...LAYERED_FILES,
  'm1nd.layers.json': JSON.stringify({ layers: [{ name: 'app', paths: ['src/app'] }, { name: 'service', paths: ['src/service'] }, { name: 'db', paths: ['src/db'] }, { name: 'lib', paths: ['src/lib'] }] }),
  'src/app/jobs.ts': `export function runAll(jobs: (() => void)[]): void {
  for (const job of jobs) {
    try {
      job();
    } catch (e) {}
  }
}
`,
};

describe('audit on a fixture repository with git history', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    git(ws, ['init', '-q', '-b', 'main']);
    git(ws, ['add', '-A']);
    git(ws, ['commit', '-q', '-m', 'initial']);
    for (let day = 1; day <= 6; day++) touch(ws, ['src/db/store.ts'], day, day % 2 ? 'fix: store bug' : 'feat: store');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('runs every section of the full profile, with recommendations from the planted upward dependency and swallowed catch', async () => {
    const r = await h.call('audit', { agent_id: 'a', report_format: 'json', token_budget: 20000 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.profile, 'full');
    assert.match(r.json.profile_reason, /auto: 8 code file/);
    assert.deepEqual(Object.keys(r.json.sections).sort(), ['cross_verify', 'external_references', 'health', 'layers', 'panoramic', 'scan_all', 'tremor', 'trust', 'xray'].sort(), JSON.stringify(r.json.skipped));
    assert.equal(r.json.sections.cross_verify.stale_count, 0);
    assert.ok(r.json.sections.layers.violation_counts.upward >= 1);
    assert.equal(r.json.sections.xray.conforms, false);
    assert.ok(r.json.sections.scan_all.worst.some((f: any) => f.file === 'src/app/jobs.ts' && f.lines[0] === 5), JSON.stringify(r.json.sections.scan_all));
    assert.ok(r.json.sections.trust.scored >= 1);
    const recs = r.json.recommendations;
    assert.ok(recs.some((x: any) => x.section === 'layers' && /src\/db\/store\.ts → src\/service\/users\.ts/.test(x.what)), JSON.stringify(recs));
    assert.ok(recs.some((x: any) => x.section === 'scan_all' && /jobs\.ts:5/.test(x.what)));
    assert.equal(recs[0].priority, 'high');
  });

  it('renders Markdown within the token budget, and says what it skipped and why', async () => {
    const r = await h.call('audit', { agent_id: 'a', profile: 'quick', include_git: false, cross_verify: false, token_budget: 400 });
    assert.equal(r.result.isError, undefined);
    const text = (r.result.content as any[])[0].text as string;
    assert.match(text, /^# Audit — profile quick/);
    assert.match(text, /## Recommendations/);
    assert.match(text, /## Skipped\n\n- cross_verify: cross_verify: false/);
    assert.ok(!/## trust/.test(text), 'quick has no git sections');
    assert.match(text, /to fit token_budget 400/);
    const spent = await h.call('audit', { agent_id: 'a', profile: 'full', report_format: 'json', time_budget_ms: 50 });
    const short = spent.json.skipped.filter((s: any) => /^time budget/.test(s.reason)).map((s: any) => s.section);
    assert.ok(short.includes('scan_all') && short.includes('layers'), JSON.stringify(spent.json.skipped));
    assert.ok(!('scan_all' in spent.json.sections));
  });
});
