import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// Each file names Token as a type (line 2/3) and as a value or call (a later line).
const FILES = {
  'go/tok.go': `package tok

type Token string

func Make(s string) Token {
	return Token(s)
}
`,
  'rs/tok.rs': `pub struct Token(String);

pub fn make(s: String) -> Token {
    Token(s)
}
`,
  'java/Tok.java': `class Tok {
  Token token;

  Object make() {
    return new Token();
  }
}
`,
};

describe('scan keywords find a name used as a type in Go, Rust and Java', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reports every line that names the keyword in code', async () => {
    const r = (await h.call('scan', { agent_id: 'a', pattern: 'custom', keywords: ['Token'], graph_validate: false, limit: 100 })).json;
    const at = [...new Set(r.findings.map((f: any) => `${f.file}:${f.lines[0]}`))].sort();
    assert.deepEqual(at, ['go/tok.go:3', 'go/tok.go:5', 'go/tok.go:6', 'java/Tok.java:2', 'java/Tok.java:5', 'rs/tok.rs:1', 'rs/tok.rs:3', 'rs/tok.rs:4'].sort(), JSON.stringify(r.findings));
  });
});
