import assert from 'node:assert/strict';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

/** A package-level function and a method of the same name, both returning a type the private lookup returns. */
const FILES: Record<string, string> = {
  'flag.go': `package flags

// Flag is one flag.
type Flag struct {
	Name string
}

// FlagSet holds flags.
type FlagSet struct {
	formal map[string]*Flag
}

// CommandLine is the default set.
var CommandLine = &FlagSet{}

func (f *FlagSet) lookup(name string) *Flag {
	return f.formal[name]
}

// Lookup finds a flag.
func (f *FlagSet) Lookup(name string) *Flag {
	return f.lookup(name)
}

// Lookup finds a flag of the command line.
func Lookup(name string) *Flag {
	return CommandLine.Lookup(name)
}
`,
};

describe('why keeps every path within max_hops', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture({ files: FILES, watch: false });
  });
  after(() => h.close());

  it('lists no alternative longer than max_hops', async () => {
    for (const maxHops of [1, 2, 3]) {
      const { json } = await h.call('why', { agent_id: 'q', source: 'function:flag.go#Lookup', target: 'method:flag.go#FlagSet.lookup', max_hops: maxHops });
      for (const p of json.paths as { hops: number; line: string; steps: unknown[] }[]) {
        assert.ok(p.hops <= maxHops, `max_hops ${maxHops}: ${p.line}`);
        assert.equal(p.steps.length, p.hops);
      }
      if (maxHops >= 2) assert.ok(json.paths.length >= 1, JSON.stringify(json));
    }
  });
});
