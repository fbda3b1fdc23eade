import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// test_coverage: which code a test's run reaches, by the calls it makes, not by which files it names.
const FILES: Record<string, string> = {
  'go.mod': 'module example.com/flags\n\ngo 1.21\n',
  'flags.go': `package flags

// Parse is what the test calls.
func Parse(args []string) int {
	return count(args)
}

// count runs under Parse.
func count(args []string) int {
	return len(args)
}

// Unused is exported and no test runs it.
func Unused() int {
	return 7
}
`,
  'flags_test.go': `package flags

import "testing"

func TestParse(t *testing.T) {
	if Parse([]string{"a"}) != 1 {
		t.Fatal("parse")
	}
}
`,
  'pkg/store.py': `class Base:
    def run(self):
        return 0


class Store(Base):
    def __init__(self):
        self.items = []

    def __len__(self):
        return len(self.items)

    def run(self):
        return len(self)


class Lonely:
    def __init__(self):
        self.x = 1


def stored(s: Base):
    return s.run()
`,
  'tests/test_store.py': `from pkg.store import Store, stored


def test_store():
    s = Store()
    assert stored(s) == 0
`,
};

describe('test_coverage follows what tests run', function () {
  this.timeout(60000);
  let h: Harness;
  let untested: string[];
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = await h.call('scan', { agent_id: 'a', pattern: 'test_coverage', severity_min: 0, limit: 200 });
    untested = r.json.findings.map((f: any) => f.node);
  });
  after(() => h?.close());

  it('a Go test linked to its file by name reaches what it calls, not every function of the file', () => {
    assert.ok(untested.includes('function:flags.go#Unused'), JSON.stringify(untested));
    assert.ok(!untested.includes('function:flags.go#Parse'), JSON.stringify(untested));
  });

  it('reaches code through calls, constructors, overrides and methods the language calls', () => {
    for (const reached of ['function:pkg/store.py#stored', 'method:pkg/store.py#Store.__init__', 'method:pkg/store.py#Store.run', 'method:pkg/store.py#Store.__len__', 'class:pkg/store.py#Store']) {
      assert.ok(!untested.includes(reached), `${reached} is run by the test: ${JSON.stringify(untested)}`);
    }
    assert.ok(untested.includes('class:pkg/store.py#Lonely'), JSON.stringify(untested));
  });
});
