import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

// Extra `}` in route(): recovery reads `if (...) {` and `for (...) {` as methods named `if` and `for`.
const BROKEN = `export class Router {
  route(path: string) {
    const parts = path.split('/');
    }
    if (parts.length > 0) {
      return parts;
    }
    for (const p of parts) {
      visit(p);
    }
  }
}
export function helper() { return 1; }
`;

// Valid TypeScript 5.x that tree-sitter-typescript 0.23.2 alone does not parse (variance, accessor).
const MODERN = `export interface Box<in I, out O> { put(v: I): O }
export class Counter { static accessor count = 0; }
`;

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('files with parse errors through the MCP client', function () {
  this.timeout(30000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = tempDir();
    write(ws, 'src/router.ts', BROKEN);
    write(ws, 'src/modern.ts', MODERN);
    write(ws, 'src/ok.ts', 'export function ok() { return helper(); }\nimport { helper } from "./router";\n');
    write(ws, 'py/bad.py', 'def f(:\n    pass\n');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
  });
  after(() => h.close());

  it('ingest lists the broken files with their error counts and first error line; modern syntax is not among them', async () => {
    const { json } = await h.call('ingest', { agent_id: 'a', path: ws });
    const pe = json.parseErrors;
    assert.equal(pe.files, 2);
    assert.deepEqual(pe.worst.map((f: { path: string }) => f.path).sort(), ['py/bad.py', 'src/router.ts']);
    const router = pe.worst.find((f: { path: string }) => f.path === 'src/router.ts');
    assert.equal(router.firstLine, 5);
    assert.ok(router.errors > 0);
    assert.equal(pe.total, pe.worst.reduce((n: number, f: { errors: number }) => n + f.errors, 0));
    assert.equal(pe.truncated, false);
  });

  it('keeps no symbol named like a keyword and keeps the sound ones', async () => {
    for (const id of ['method:src/router.ts#Router.if', 'method:src/router.ts#Router.for']) {
      const { json } = await h.call('impact', { agent_id: 'a', node_id: id });
      assert.equal(json.error?.code, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND', id);
    }
    for (const id of ['method:src/router.ts#Router.route', 'function:src/router.ts#helper', 'method:src/modern.ts#Box.put']) {
      const { json } = await h.call('impact', { agent_id: 'a', node_id: id });
      assert.equal(json.error, undefined, id);
    }
  });

  it('health and doctor report the broken files with their first error line', async () => {
    const health = (await h.call('health', { agent_id: 'a' })).json;
    assert.equal(health.graph.parse_errors.files, 2);
    assert.deepEqual(
      health.graph.parse_errors.worst.map((f: { path: string; first_line: number }) => `${f.path}:${f.first_line}`).sort(),
      ['py/bad.py:1', 'src/router.ts:5'],
    );
    const doctor = (await h.call('doctor', { agent_id: 'a' })).json;
    const finding = doctor.findings.find((f: { check: string }) => f.check === 'parse_errors');
    assert.equal(finding.ok, false);
    assert.match(finding.detail, /^2 file\(s\) parse with errors/);
    assert.match(finding.detail, /src\/router\.ts:5/);
    assert.equal(doctor.status, 'attention');
  });

  it('reports them again after a restart, from the stored extractions', async () => {
    const again = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const health = (await again.call('health', { agent_id: 'a' })).json;
      assert.deepEqual(
        health.graph.parse_errors.worst.map((f: { path: string; first_line: number }) => `${f.path}:${f.first_line}`).sort(),
        ['py/bad.py:1', 'src/router.ts:5'],
      );
    } finally {
      await again.close();
    }
  });

  it('reports a clean workspace once the files are fixed', async () => {
    write(ws, 'src/router.ts', 'export function helper() { return 1; }\n');
    fs.rmSync(path.join(ws, 'py/bad.py'));
    const { json } = await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    assert.deepEqual(json.parseErrors, { files: 0, total: 0, worst: [], truncated: false });
    const doctor = (await h.call('doctor', { agent_id: 'a' })).json;
    assert.equal(doctor.findings.find((f: { check: string }) => f.check === 'parse_errors').ok, true);
  });
});
