import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FACTS_DB, FactsStore, StoredFacts, decodeFacts, encodeFacts, factsVersion } from '../../../plugins/structure/facts-store.ts';
import type { FileFacts } from '../../../plugins/structure/file-facts.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { pythonModule } from './python-module.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/m1nd.js');

/** Python and TypeScript modules, each with a swallowed error and a copy-pasted function. */
function repo(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    files[`py/mod${String(i).padStart(3, '0')}.py`] = pythonModule(i);
  }
  files['src/a.ts'] = `export function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {}
  return null;
}
`;
  return files;
}

/** A server in its own process (the built-in plugins from sources). */
async function serve(workspace: string, cache: string): Promise<{ call(name: string, args: Record<string, unknown>): Promise<any>; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--workspace', workspace],
    env: { PATH: process.env.PATH ?? '', M1ND_TOOL_TIER: 'full', M1ND_FROM_SOURCE: '1', M1ND_CACHE_DIR: cache },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'facts-store-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    async call(name, args) {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
      const text = result.content?.[0]?.type === 'text' ? result.content[0].text : '';
      assert.equal(result.isError, undefined, text);
      return JSON.parse(text);
    },
    close: () => client.close(),
  };
}

// The scans' own facts path: the ingest's findings (ingest-findings.test.ts) off, so every scan reads or computes facts.
const NO_BACKGROUND = { options: { structure: { backgroundFacts: false, ingestFindings: false } } };

describe('structure facts persisted per file content', function () {
  this.timeout(240_000);

  it('a second server process reads the first one\'s facts: its scan_all and twins parse nothing and answer the same', async () => {
    const ws = writeFixtureRepo(tempDir(), repo(12));
    const cache = tempDir();
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: cache }, config: NO_BACKGROUND });
    let first: any;
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      first = (await h.call('scan_all', { agent_id: 'a', patterns: ['error_handling'], limit_per_pattern: 200, token_budget: 20000 })).json;
      assert.equal(first.files_total, 13);
      assert.equal(first.files_parsed + first.files_from_cache, 13, JSON.stringify(first).slice(0, 400));
    } finally {
      await h.close();
    }
    assert.ok(existsSync(path.join(ws, '.m1nd', FACTS_DB)), 'the facts table sits in the store directory');
    const rows = new Database(path.join(ws, '.m1nd', FACTS_DB), { readonly: true });
    try {
      assert.equal((rows.prepare('SELECT count(*) AS n FROM facts').get() as { n: number }).n, 13);
      assert.equal((rows.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string }).value, factsVersion());
    } finally {
      rows.close();
    }

    const second = await serve(ws, cache);
    try {
      const scan = await second.call('scan_all', { agent_id: 'b', patterns: ['error_handling'], limit_per_pattern: 200, token_budget: 20000 });
      assert.equal(scan.files_parsed, 0, 'nothing parsed in the new process');
      assert.equal(scan.files_from_store + scan.files_from_cache, 13);
      const key = (f: any) => `${f.file}:${f.lines.join('-')}:${f.rule}`;
      assert.deepEqual(scan.findings.error_handling.map(key).sort(), first.findings.error_handling.map(key).sort());
      assert.ok(scan.findings.error_handling.some((f: any) => f.file === 'src/a.ts' && f.lines[0] === 4), 'the TypeScript swallowed catch');
      const twins = await second.call('twins', { agent_id: 'b', top_k: 200, token_budget: 20000 });
      assert.equal(twins.compared.files_parsed, 0);
      assert.ok(twins.total >= 11, `${twins.total} pairs`);
      const health = await second.call('health', { agent_id: 'b' });
      assert.equal(health.structure.background_facts.parsed, 0, JSON.stringify(health.structure));
      assert.equal(health.structure.facts.parsed, 0, 'the process parsed no file for its facts');
      assert.equal(health.structure.facts.from_store, 13);
    } finally {
      await second.close();
    }
  });

  it('facts the background job persisted after an ingest: a new server process answers scan_all and twins without parsing a file', async () => {
    const ws = writeFixtureRepo(tempDir(), repo(10));
    const cache = tempDir();
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: cache }, config: { options: { structure: { ingestFindings: false }, graph: { watch: false } } } });
    let before: any;
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      let job: any;
      for (let i = 0; i < 600; i++) {
        job = (await h.call('health', { agent_id: 'a' })).json.structure.background_facts;
        if (job.state === 'done' && job.files === 11) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual([job.state, job.files], ['done', 11], JSON.stringify(job));
      before = (await h.call('scan_all', { agent_id: 'a', patterns: ['error_handling'], limit_per_pattern: 200, token_budget: 20000 })).json;
      assert.equal(before.files_parsed, 0, 'the job made every file\'s facts');
    } finally {
      await h.close();
    }
    const second = await serve(ws, cache);
    try {
      const scan = await second.call('scan_all', { agent_id: 'b', patterns: ['error_handling'], limit_per_pattern: 200, token_budget: 20000 });
      // A new process has no facts but the store's: read by this call, or by the background job into the cache first.
      assert.deepEqual([scan.files_parsed, scan.files_from_store + scan.files_from_cache], [0, 11], JSON.stringify({ ...scan, findings: undefined }));
      const key = (f: any) => `${f.file}:${f.lines.join('-')}:${f.rule}`;
      assert.deepEqual(scan.findings.error_handling.map(key).sort(), before.findings.error_handling.map(key).sort());
      assert.equal(scan.findings.error_handling.filter((f: any) => f.file.startsWith('py/')).length, 10, 'one swallowed OSError per Python module');
      const twins = await second.call('twins', { agent_id: 'b', top_k: 200, token_budget: 20000 });
      assert.equal(twins.compared.files_parsed, 0);
      assert.ok(twins.total >= 9, `${twins.total} pairs`);
      const health = await second.call('health', { agent_id: 'b' });
      assert.deepEqual([health.structure.facts.parsed, health.structure.facts.from_store], [0, 11], JSON.stringify(health.structure));
    } finally {
      await second.close();
    }
  });

  it('facts written under other rules or grammars are dropped: every file is parsed again', async () => {
    const ws = writeFixtureRepo(tempDir(), repo(6));
    const env = { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() };
    let h: Harness = await connect({ workspaceRoot: ws, env, config: NO_BACKGROUND });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const cold = (await h.call('scan_all', { agent_id: 'a', patterns: ['error_handling'] })).json;
      assert.equal(cold.files_parsed + cold.files_from_cache, 7);
    } finally {
      await h.close();
    }
    // Same version: a new server (its own memory, as a new process) reads every row.
    h = await connect({ workspaceRoot: ws, env, config: NO_BACKGROUND });
    try {
      const warm = (await h.call('scan_all', { agent_id: 'a', patterns: ['error_handling'] })).json;
      assert.deepEqual([warm.files_parsed, warm.files_from_store], [0, 7]);
    } finally {
      await h.close();
    }
    // The table says another rule set wrote it.
    const db = new Database(path.join(ws, '.m1nd', FACTS_DB));
    db.prepare("UPDATE meta SET value = 'older-rules' WHERE key = 'version'").run();
    db.close();
    h = await connect({ workspaceRoot: ws, env, config: NO_BACKGROUND });
    try {
      const again = (await h.call('scan_all', { agent_id: 'a', patterns: ['error_handling'] })).json;
      assert.deepEqual([again.files_parsed, again.files_from_store], [7, 0]);
      assert.equal(again.findings.error_handling.length, 7);
    } finally {
      await h.close();
    }
  });

  it('an edited file is parsed again, the others come from the table', async () => {
    const ws = writeFixtureRepo(tempDir(), repo(5));
    const env = { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() };
    let h: Harness = await connect({ workspaceRoot: ws, env, config: { options: { structure: { backgroundFacts: false, ingestFindings: false }, graph: { watch: false } } } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      await h.call('scan_all', { agent_id: 'a', patterns: ['error_handling'] });
    } finally {
      await h.close();
    }
    const file = path.join(ws, 'py/mod002.py');
    (await import('node:fs')).writeFileSync(file, `${readFileSync(file, 'utf8')}\n\ndef extra():\n    try:\n        pass\n    except Exception:\n        pass\n`);
    h = await connect({ workspaceRoot: ws, env, config: { options: { structure: { backgroundFacts: false, ingestFindings: false }, graph: { watch: false } } } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = (await h.call('scan_all', { agent_id: 'a', patterns: ['error_handling'], limit_per_pattern: 200 })).json;
      assert.deepEqual([r.files_parsed, r.files_from_store], [1, 5]);
      assert.equal(r.findings.error_handling.filter((f: any) => f.file === 'py/mod002.py').length, 2);
    } finally {
      await h.close();
    }
  });
});

describe('stored facts rows', () => {
  const facts: FileFacts = {
    findings: { 'py-swallowed': [{ pattern: 'error_handling', rule: 'py-swallowed', file: 'a.py', lines: [3, 4], severity: 0.6, message: 'swallowed', code: 'except OSError:\n    pass' }] },
    defs: [
      { row: 0, endRow: 9, tokens: 40, shingles: Int32Array.from([-5, 3, 17]) },
      { row: 2, endRow: 4, tokens: 9, shingles: Int32Array.from([3]) },
    ],
  };
  const plain = (f: FileFacts) => ({ findings: f.findings, defs: f.defs.map((d) => ({ ...d, shingles: [...d.shingles] })) });

  it('decode each half on first use to what was encoded, in either order, from a buffer at any offset', () => {
    const bytes = encodeFacts(facts);
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    const atOffset = shifted.subarray(3);
    assert.deepEqual(plain(decodeFacts(atOffset)), plain(facts));
    const defsFirst = new StoredFacts(atOffset);
    assert.deepEqual(defsFirst.defs.map((d) => [...d.shingles]), [[-5, 3, 17], [3]]);
    assert.deepEqual(plain(defsFirst), plain(facts));
    const findingsFirst = new StoredFacts(bytes);
    assert.equal(findingsFirst.findings['py-swallowed'][0].lines[1], 4);
    assert.deepEqual(plain(findingsFirst), plain(facts));
    assert.equal(findingsFirst.findings, findingsFirst.findings, 'decoded once');
  });

  it('read a row with no findings and no definitions as empty', () => {
    const empty = new StoredFacts(encodeFacts({ findings: {}, defs: [] }));
    assert.deepEqual([Object.keys(empty.findings), empty.defs], [[], []]);
  });

  it("retain drops the rows of files the graph no longer holds, listing paths from the small path index", () => {
    const dir = tempDir('m1nd-facts-retain-');
    const store = FactsStore.open(dir, true)!;
    const blob: FileFacts = { findings: {}, defs: [{ row: 0, endRow: 3, tokens: 12, shingles: Int32Array.from([1, 2, 3]) }] };
    store.write(['a.py', 'b.py', 'c.py'].map((p) => ({ path: p, hash: 'h', facts: blob })));
    assert.equal(store.retain(new Set(['a.py', 'c.py', 'gone.py'])), 1);
    assert.equal(store.size(), 2);
    store.close();
    const db = new Database(path.join(dir, FACTS_DB), { readonly: true });
    const plan = (db.prepare('EXPLAIN QUERY PLAN SELECT path FROM facts').all() as { detail: string }[]).map((r) => r.detail).join(' ');
    db.close();
    assert.match(plan, /COVERING INDEX facts_paths/, plan);
  });
});
