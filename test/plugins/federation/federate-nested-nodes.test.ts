import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** The nested package: published as @ws/lib. */
const LIB = {
  'package.json': JSON.stringify({ name: '@ws/lib', type: 'module', version: '1.0.0' }),
  'src/index.ts': "import { normaliseLedger } from './util.ts';\n\nexport function parseLedger(s: string): string {\n  return normaliseLedger(s);\n}\n\nexport function formatLedger(s: string): string {\n  return `[${s}]`;\n}\n",
  'src/util.ts': 'export function normaliseLedger(s: string): string {\n  return s.trim();\n}\n',
};

/** The outer repository's own files: one reaches the package by a relative path, one by its name. */
const OUTER = {
  'package.json': JSON.stringify({ name: 'ws', type: 'module', private: true, dependencies: { '@ws/lib': 'workspace:*' } }),
  'src/app.ts': "import { parseLedger } from '../lib/src/index.ts';\n\nexport function importLedger(input: string): string {\n  return parseLedger(input);\n}\n",
  'src/cli.ts': "import { formatLedger } from '@ws/lib';\n\nexport function printLedger(input: string): string {\n  return formatLedger(input);\n}\n",
};

const prefixed = (files: Record<string, string>, dir: string) => Object.fromEntries(Object.entries(files).map(([k, v]) => [`${dir}/${k}`, v]));
const edgeText = (e: any) => `${e.source} -${e.relation}-> ${e.target}`;

describe('federate: the files under a nested member belong to it alone', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** `ws` with the package at `ws/lib`, federated as ws + lib; and the same two federated as siblings. */
  async function federate(nested: boolean) {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-nested-nodes-')));
    const ws = path.join(parent, 'ws');
    write(ws, nested ? { ...OUTER, ...prefixed(LIB, 'lib') } : OUTER);
    if (!nested) write(path.join(parent, 'lib'), LIB);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'ws', path: '.' }, { name: 'lib', path: nested ? 'lib' : '../lib' }], top_k: 100 })).json;
    assert.ok(r.repos, JSON.stringify(r).slice(0, 400));
    const view = (await h.call('federation_view', { agent_id: 'a', view: 'federated' })).json;
    return { r, view };
  }

  it("counts each nested file's nodes once, under the nested member: as many as the two federated as siblings", async () => {
    const siblings = await federate(false);
    await h!.close();
    const nested = await federate(true);
    const nodes = (x: any) => Object.fromEntries(x.repos.map((r: any) => [r.name, r.nodes]));
    assert.deepEqual(nodes(nested.r), nodes(siblings.r), JSON.stringify(nested.r.repos));
    assert.deepEqual(nodes(nested.view), nodes(siblings.view));
    assert.equal(nested.view.nodes, siblings.view.nodes, JSON.stringify({ nested: nested.view, siblings: siblings.view }));
    assert.equal(nested.view.nodes, siblings.r.repos[0].nodes + siblings.r.repos[1].nodes);
    // Said, not hidden: which of the outer repository's files went to the nested member.
    const ws = nested.r.repos.find((x: any) => x.name === 'ws');
    assert.deepEqual(ws.nested, [{ repo: 'lib', folder: 'lib/', files: 2, nodes: siblings.r.repos[1].nodes }], JSON.stringify(ws));
    const inView = nested.view.repos.find((x: any) => x.name === 'ws');
    assert.deepEqual(inView.nested.map((n: any) => [n.repo, n.folder, n.files, n.nodes]), [['lib', 'lib/', 2, siblings.r.repos[1].nodes]], JSON.stringify(inView));
    // src/app.ts's import of ../lib/src/index.ts and importLedger's call of parseLedger, tied to lib's nodes.
    assert.ok(inView.nested[0].edges >= 2, JSON.stringify(inView));
  });

  it("holds every nested symbol once, and the outer repository's calls into it are cross-repository edges to the member's nodes", async () => {
    const { r } = await federate(true);
    // Through the package name: evidence federate finds and lists.
    assert.ok(r.edges.map(edgeText).includes('ws::function:src/cli.ts#printLedger -calls-> lib::function:src/index.ts#formatLedger'), JSON.stringify(r.edges));
    const seek = (await h!.call('seek', { agent_id: 'a', query: 'parseLedger', top_k: 20 })).json;
    const ids = seek.results.map((x: any) => x.id);
    assert.deepEqual(ids.filter((id: string) => id.endsWith('#parseLedger')), ['lib::function:src/index.ts#parseLedger'], JSON.stringify(ids));
    assert.ok(ids.every((id: string) => !id.startsWith('ws::') || !id.includes(':lib/')), JSON.stringify(ids));
    // Through the relative path the outer repository's own graph resolved: the same call, now tied across.
    const callers = (await h!.call('impact', { agent_id: 'a', node_id: 'lib::function:src/index.ts#parseLedger', direction: 'reverse' })).json;
    const direct = callers.direct.map((d: any) => `${d.id} ${d.relation}`);
    assert.ok(direct.includes('ws::function:src/app.ts#importLedger calls'), JSON.stringify(callers.direct));
    assert.equal(direct.filter((d: string) => d.startsWith('ws::function:src/app.ts#importLedger')).length, 1, JSON.stringify(direct));
    assert.equal(callers.node.id, 'lib::function:src/index.ts#parseLedger');
    assert.equal((await h!.call('impact', { agent_id: 'a', node_id: 'ws::function:lib/src/index.ts#parseLedger' })).json.error?.code !== undefined, true);
    // The lib's own call inside it is there once, in its namespace.
    const inner = (await h!.call('impact', { agent_id: 'a', node_id: 'lib::function:src/util.ts#normaliseLedger', direction: 'reverse' })).json;
    assert.deepEqual(inner.direct.map((d: any) => `${d.id} ${d.relation}`).filter((d: string) => d.includes('parseLedger')), ['lib::function:src/index.ts#parseLedger calls'], JSON.stringify(inner.direct));
  });

  it('content search over the federation reads each nested file once, as the nested member’s', async () => {
    await federate(true);
    const s = (await h!.call('search', { agent_id: 'a', query: 'export function parseLedger', top_k: 20 })).json;
    assert.deepEqual(s.matches.map((m: any) => m.path), ['lib::src/index.ts'], JSON.stringify(s));
  });
});
