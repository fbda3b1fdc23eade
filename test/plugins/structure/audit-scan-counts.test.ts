import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// A swallowed ImportError is a 0.3 finding: scan_all counts it by default, the audit's scan does not.
const FILES = {
  'pkg/compat.py': `try:
    import ujson as json
except ImportError:
    pass


def load(text):
    return text
`,
};

describe("audit's scan section says the severity its counts are of", function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('names severity_min beside counts that leave out findings scan_all counts', async () => {
    const all = (await h.call('scan_all', { agent_id: 'a' })).json;
    const r = (await h.call('audit', { agent_id: 'a', profile: 'quick', report_format: 'json', cross_verify: false })).json;
    const section = r.sections.scan_all;
    assert.ok(section, JSON.stringify(r));
    assert.equal(all.counts.error_handling, 1, JSON.stringify(all.counts));
    assert.equal(section.counts.error_handling, 0, JSON.stringify(section));
    assert.equal(section.severity_min, 0.5, JSON.stringify(section));
  });
});
