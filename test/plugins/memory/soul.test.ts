import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const AGENTS = `# Agents guide

Run \`npm test\` before committing; build with \`npm run build\`.
Lint with \`npm run lint:strict\`.
The cart lives in \`src/cart.ts\` and the maths in [math](src/math.ts).
Old helpers are in \`src/helpers/old.ts\`.

## Code

Call \`total()\` to sum prices; \`Cart.checkout\` returns it.
We use TypeScript 5.9 and Node 20.
Be kind in reviews.
`;

describe('soul_read and soul_check on a fixture AGENTS.md', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    fs.writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ type: 'module', scripts: { test: 'mocha', build: 'tsc', lint: 'eslint .' }, engines: { node: '>=20.19' }, devDependencies: { typescript: '~5.9.3' } }));
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), AGENTS);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reports exactly the false path and the wrong script name, with a freshness receipt', async () => {
    const r = (await h.call('soul_check', { agent_id: 'a' })).json;
    assert.equal(r.path, 'AGENTS.md');
    assert.equal(r.honest, false);
    assert.deepEqual(r.false.map((c: any) => [c.line, c.class, c.claim]), [
      [4, 'script', 'npm lint:strict'],
      [6, 'path', 'src/helpers/old.ts'],
    ]);
    assert.deepEqual(r.verified, ['3: npm test', '3: npm build', '5: src/cart.ts', '5: src/math.ts', '10: total()', '10: Cart.checkout', '11: TypeScript 5.9', '11: Node 20']);
    assert.equal(r.counts.not_checkable_lines, 1, 'the line of taste is not checkable, and not verified');
    assert.match(r.receipt.content_hash, /^[0-9a-f]{16}$/);
    assert.ok(Date.parse(r.receipt.checked_at) > 0);
    fs.writeFileSync(path.join(ws, 'src/helpers.ts'), 'export const x = 1;\n');
    fs.appendFileSync(path.join(ws, 'AGENTS.md'), 'Helpers: `src/helpers.ts`.\n');
    const again = (await h.call('soul_check', { agent_id: 'a' })).json;
    assert.notEqual(again.receipt.content_hash, r.receipt.content_hash, 'the receipt names the text checked');
    assert.equal(again.counts.false, 2);
  });

  it("checks a curator's report the same way, by another agent than its author only", async () => {
    const report = 'Updated the guide: the cart is in `src/cart.ts`; removed `src/gone/legacy.ts`; run `npm run build`.';
    const r = (await h.call('soul_check', { agent_id: 'reviewer', verify_curator_report: { author: 'curator', report } })).json;
    assert.equal(r.curator_report.author, 'curator');
    assert.equal(r.curator_report.checked_by, 'reviewer');
    assert.equal(r.curator_report.honest, false);
    assert.deepEqual(r.curator_report.false.map((c: any) => c.claim), ['src/gone/legacy.ts']);
    assert.equal(r.curator_report.counts.verified, 2);
    const own = await h.call('soul_check', { agent_id: 'curator', verify_curator_report: { author: 'curator', report } });
    assert.equal(own.result.isError, true);
    assert.match(own.json.error.message, /verified by another agent than its author/);
  });

  it('soul_read returns the whole document or one section, and falls back to CLAUDE.md', async () => {
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), AGENTS);
    const whole = (await h.call('soul_read', { agent_id: 'a' })).json;
    assert.equal(whole.text, fs.readFileSync(path.join(ws, 'AGENTS.md'), 'utf8'));
    assert.deepEqual(whole.sections, ['Agents guide', 'Code']);
    const code = (await h.call('soul_read', { agent_id: 'a', section: 'code' })).json;
    assert.deepEqual(code.lines, [8, 13]);
    assert.ok(code.text.startsWith('## Code\n'));
    assert.equal((await h.call('soul_read', { agent_id: 'a', section: 'nope' })).json.error.code, 'M1ND_ERR_STATE_NOT_FOUND');
    fs.renameSync(path.join(ws, 'AGENTS.md'), path.join(ws, 'CLAUDE.md'));
    assert.equal((await h.call('soul_read', { agent_id: 'a' })).json.path, 'CLAUDE.md');
    assert.equal((await h.call('soul_read', { agent_id: 'a', soul_path: '../x.md' })).json.error.code, 'M1ND_ERR_PATH_ESCAPE');
  });
});
