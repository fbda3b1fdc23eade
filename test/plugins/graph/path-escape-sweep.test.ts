import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { minimalArguments, pathParameters, type TSchema } from '../../../core/index.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

/** Any string parameter that smells of a location, found independently of pathParameters' rule. */
function looksLikeLocation(name: string, s: TSchema): boolean {
  const leaf = s.type === 'array' ? s.items : s;
  if (!leaf || leaf.type !== 'string' || Array.isArray(leaf.enum) || leaf.const !== undefined) return false;
  return /path|file|scope|root|dir|folder/.test(name) || /\b(path|directory|folder|file|root)\b/i.test(String(s.description ?? ''));
}

/** Glob patterns: matched against ingested paths only (never opened on disk). */
const FILTERS_OVER_INGESTED_PATHS = new Set(['filename_pattern', 'pattern', 'dotfile_patterns']);
/** Node references (id, path or name): looked up in the graph, never on disk. */
const GRAPH_REFERENCE = /node|center/;

describe('every workspace-path parameter of every verb goes through the one workspace checker', function () {
  this.timeout(120000);
  let h: Harness;
  let outside: string;
  const agent = 'sweeper';

  before(async () => {
    outside = tempDir('m1nd-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'the sentinel outside the workspace\n');
    h = await connect();
    fs.mkdirSync(path.join(h.workspace, 'src'));
    fs.writeFileSync(path.join(h.workspace, 'src/a.ts'), 'export function a(): number {\n  return 1;\n}\n');
    fs.symlinkSync(outside, path.join(h.workspace, 'linkout'));
    await h.call('ingest', { agent_id: agent, path: '.' });
  });
  after(async () => {
    await h.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  /** Each escape in two forms: at the existing sentinel and at a missing sibling (their answers must not differ). */
  function escapes(): { kind: string; existing: string; missing: string }[] {
    const rel = path.relative(h.workspace, outside);
    return [
      { kind: 'dot-dot', existing: `${rel}/secret.txt`, missing: `${rel}/absent.txt` },
      { kind: 'absolute', existing: path.join(outside, 'secret.txt'), missing: path.join(outside, 'absent.txt') },
      { kind: 'symlink', existing: 'linkout/secret.txt', missing: 'linkout/absent.txt' },
      { kind: 'nul', existing: 'src/a.ts\0../../secret.txt', missing: 'src/a.ts\0../../absent.txt' },
    ];
  }

  it('finds the path parameters from the schemas, and misses none that names a location', () => {
    const verbs = h.host.current.records();
    const matched: string[] = [];
    const optedOut: string[] = [];
    const unchecked: string[] = [];
    for (const v of verbs) {
      const params = pathParameters(v.input).map((p) => p.name);
      matched.push(...params.map((p) => `${v.name}.${p}`));
      for (const [name, s] of Object.entries((v.input.properties ?? {}) as Record<string, TSchema>)) {
        if (!looksLikeLocation(name, s) || params.includes(name) || FILTERS_OVER_INGESTED_PATHS.has(name) || GRAPH_REFERENCE.test(name)) continue;
        (s.workspacePath === false ? optedOut : unchecked).push(`${v.name}.${name}: ${s.description ?? ''}`);
      }
    }
    console.log(`      path parameters (${matched.length}): ${matched.join(', ')}`);
    console.log(`      declared not-a-workspace-path (${optedOut.length}): ${optedOut.join(', ')}`);
    assert.deepEqual(unchecked, [], 'parameters that name a location but are neither checked nor declared workspacePath:false');
    for (const must of ['am_i_stale.files', 'view.file_path', 'batch_view.files', 'search.scope', 'ingest.path', 'persist.path']) assert.ok(matched.includes(must), must);
  });

  it('refuses `..`, absolute, symlink-escape and NUL inputs in every verb, identically whether the outside file exists', async () => {
    let calls = 0;
    const refusedBy = new Map<string, number>();
    for (const v of h.host.current.records()) {
      for (const p of pathParameters(v.input)) {
        for (const e of escapes()) {
          const answers: string[] = [];
          for (const value of [e.existing, e.missing]) {
            const args = { ...minimalArguments(v.input), agent_id: agent, [p.name]: p.list ? [value] : value };
            const { result, json } = await h.call(v.name, args);
            calls++;
            assert.equal(result.isError, true, `${v.name}.${p.name} (${e.kind}) was not refused: ${JSON.stringify(json).slice(0, 300)}`);
            assert.equal(json.error.code, 'M1ND_ERR_PATH_ESCAPE', `${v.name}.${p.name} (${e.kind}): ${JSON.stringify(json.error).slice(0, 300)}`);
            assert.ok(!JSON.stringify(json).includes('sentinel outside'), 'the sentinel content leaked');
            answers.push(JSON.stringify(json.error).replaceAll('secret.txt', 'F').replaceAll('absent.txt', 'F'));
          }
          assert.equal(answers[0], answers[1], `${v.name}.${p.name} (${e.kind}) answers differently when the outside file exists`);
          refusedBy.set(v.name, (refusedBy.get(v.name) ?? 0) + 1);
        }
      }
    }
    const params = h.host.current.records().reduce((n, v) => n + pathParameters(v.input).length, 0);
    console.log(`      ${refusedBy.size} verbs, ${params} path parameters x ${escapes().length} escapes x 2 (exists / missing) = ${calls} calls, all refused`);
    assert.equal(calls, params * escapes().length * 2);
    assert.equal(refusedBy.size, h.host.current.records().filter((v) => pathParameters(v.input).length > 0).length);
  });

  it('answers node references and locations declared not to be workspace paths the same whether the outside file exists', async () => {
    for (const v of h.host.current.records()) {
      for (const [name, s] of Object.entries((v.input.properties ?? {}) as Record<string, TSchema>)) {
        const leaf = s.type === 'array' ? s.items : s;
        const reference = GRAPH_REFERENCE.test(name) && leaf?.type === 'string' && leaf.enum === undefined;
        if (s.workspacePath !== false && !reference) continue;
        const answers: string[] = [];
        for (const file of ['secret.txt', 'absent.txt']) {
          const value = path.join(outside, file);
          const { json } = await h.call(v.name, { ...minimalArguments(v.input), agent_id: agent, [name]: s.type === 'array' ? [value] : value });
          answers.push(JSON.stringify({ ...json, _m1nd: undefined }).replaceAll(file, 'F').replace(/"(elapsed_ms|uptime_s|checked_at|generated_at)":[^,}]*/g, '').replace(/round trip [0-9.]+ ms/g, 'round trip'));
        }
        assert.equal(answers[0], answers[1], `${v.name}.${name}`);
      }
    }
  });

  it('am_i_stale no longer tells a vanished outside file from an existing one', async () => {
    const rel = path.relative(h.workspace, outside);
    const { result, json } = await h.call('am_i_stale', { agent_id: agent, files: [`${rel}/secret.txt`, `${rel}/absent.txt`] });
    assert.equal(result.isError, true);
    assert.equal(json.error.code, 'M1ND_ERR_PATH_ESCAPE');
    // src/gone.ts never existed: not_found (vanished is for a file the graph or the session knew).
    const inside = (await h.call('am_i_stale', { agent_id: agent, files: ['./src/a.ts', 'src/gone.ts'] })).json;
    assert.deepEqual(inside.stale.map((s: any) => [s.path, s.status]), [['src/gone.ts', 'not_found']]);
    assert.deepEqual(inside.fresh, ['src/a.ts']);
  });
});
