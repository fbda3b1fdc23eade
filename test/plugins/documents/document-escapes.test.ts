import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { makeDocx } from './document-fixtures.ts';

function write(ws: string, rel: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  fs.writeFileSync(path.join(ws, rel), data);
}

describe('document_bindings: backticks typed as text in a converted document', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir());
    // Word and HTML authors type backticks as plain text; the converters escape them (\`Cart\.checkout\`).
    write(ws, 'docs/design.docx', await makeDocx('Design', ['Checkout goes through `Cart.checkout` and nothing else.']));
    write(ws, 'docs/page.html', '<html><body><h1>Page</h1><p>Checkout goes through `Cart.checkout` and nothing else.</p></body></html>');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  for (const doc of ['docs/design.docx', 'docs/page.html']) {
    it(`binds the name between escaped backticks in ${path.extname(doc)} (no code span starts at an escaped backtick)`, async () => {
      const r = (await h.call('document_bindings', { agent_id: 'a', path: doc })).json;
      assert.match(r.markdown ?? (await h.call('document_resolve', { agent_id: 'a', path: doc })).json.markdown, /\\`/, 'the converter escaped the backticks');
      const b = r.bindings.find((x: any) => x.text === 'Cart.checkout');
      assert.ok(b, JSON.stringify(r.bindings));
      assert.equal(b.status, 'bound');
      assert.deepEqual(b.targets.map((t: any) => t.id), ['method:src/cart.ts#Cart.checkout']);
    });
  }
});
