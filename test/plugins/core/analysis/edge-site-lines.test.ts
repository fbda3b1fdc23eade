import assert from 'node:assert/strict';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

/** A function documented by two sections of one document, each mentioning it on its own line. */
const FILES: Record<string, string> = {
  'src/jobs.ts': `/** Runs one job. */
export function runJob(name: string): string {
  return name;
}
`,
  'docs/guide.md': `# Guide

## Starting

Call \`runJob\` to start a job.

## Details

Some words about jobs.

More words.

Again, \`runJob\` takes a name.
`,
};

describe('impact: the line of a documenting section is its own mention', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture({ files: FILES, watch: false });
  });
  after(() => h.close());

  it('gives each section the line where it mentions the node, not the first mention in the file', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'function:src/jobs.ts#runJob' });
    const lines = Object.fromEntries(
      json.direct.filter((d: { relation: string }) => d.relation.includes('documents')).map((d: { id: string; line: number }) => [d.id.replace(/^.*#/, ''), d.line]),
    );
    assert.deepEqual(lines, { 'Guide.Starting': 5, 'Guide.Details': 13 }, JSON.stringify(json.direct));
  });
});
