import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeHistoryRepo } from './git-fixture.ts';

const PYTHON = `Traceback (most recent call last):
  File "/opt/app/main.py", line 10, in <module>
    retry(load)
  File "/opt/app/py/retry.py", line 11, in retry
    return fn()
  File "/opt/app/main.py", line 6, in load
    raise ValueError("boom")
ValueError: boom`;

const NODE = `Error: bad price
    at total (/srv/shop/src/cart.ts:6:37)
    at checkout (/srv/shop/src/cart.ts:13:22)
    at Object.<anonymous> (/srv/shop/main.ts:3:1)
    at Module._compile (node:internal/modules/cjs/loader:1256:14)`;

const NODE_SOURCE_MAPPED = `TypeError: Cannot read properties of undefined (reading 'trim')
    at handleRequest (webpack://shop/./src/api.ts:2:15)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;

const GO = `panic: bad port

goroutine 1 [running]:
example.com/app/go.listen(...)
	/home/ci/app/go/server.go:9 +0x45
example.com/app/go.Serve(0xffffffffffffffff)
	/home/ci/app/go/server.go:4 +0x1d
main.main()
	/home/ci/app/cmd/main.go:12 +0x25
exit status 2`;

describe('trace and hypothesize on a fixture repository', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = tempDir();
    writeHistoryRepo(ws);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
  });
  after(() => h?.close());

  it('maps a Python traceback to the innermost workspace function at rank 1', async () => {
    const r = await h.call('trace', { agent_id: 'a', error_text: PYTHON });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.language, 'python');
    assert.equal(r.json.suspects[0].id, 'function:py/retry.py#retry');
    assert.equal(r.json.external_frames, 2, 'main.py is not in the workspace');
    assert.equal(r.json.error, 'ValueError: boom');
  });

  it('maps a Node stack to the throwing function at rank 1, with its caller next', async () => {
    const r = await h.call('trace', { agent_id: 'a', error_text: NODE });
    assert.equal(r.json.language, 'node');
    assert.equal(r.json.suspects[0].id, 'function:src/cart.ts#total');
    assert.equal(r.json.suspects[1].id, 'function:src/cart.ts#checkout');
    assert.ok(r.json.fix_scope.includes('src/cart.ts'));
  });

  it('unwraps a source-mapped webpack frame', async () => {
    const r = await h.call('trace', { agent_id: 'a', error_text: NODE_SOURCE_MAPPED });
    assert.equal(r.json.suspects[0].id, 'function:src/api.ts#handleRequest');
  });

  it('maps a Go panic to the panicking function at rank 1 and lists its caller', async () => {
    const r = await h.call('trace', { agent_id: 'a', error_text: GO });
    assert.equal(r.json.language, 'go');
    assert.equal(r.json.suspects[0].id, 'function:go/server.go#listen');
    assert.equal(r.json.suspects[1].id, 'function:go/server.go#Serve');
    assert.ok(r.json.suspects[0].components.recency > 0, 'go/server.go has commits');
  });

  it('claims no name mismatch for a module-level frame', async () => {
    const trace = `Traceback (most recent call last):
  File "/opt/app/py/config.py", line 1, in <module>
    RETRIES = 3
  File "/opt/app/py/retry.py", line 1, in <module>
    import time
ImportError: boom`;
    const r = await h.call('trace', { agent_id: 'a', error_text: trace });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.mapped_frames, 2);
    assert.deepEqual(r.json.suspects.filter((s: any) => s.name_mismatch), [], JSON.stringify(r.json.suspects));
  });

  it('names a Go method frame by its method, not its receiver, and says when the line is in another function', async () => {
    const trace = `panic: bad port

goroutine 1 [running]:
example.com/app/go.(*Server).listen(0xc000012345, {0x0, 0x0})
	/home/ci/app/go/server.go:9 +0x45
example.com/app/go.(*Server).Start(0xc000012345)
	/home/ci/app/go/server.go:4 +0x1d`;
    const r = await h.call('trace', { agent_id: 'a', error_text: trace });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const bySymbol = Object.fromEntries(r.json.suspects.map((s: any) => [s.id, s]));
    assert.equal(bySymbol['function:go/server.go#listen'].frame.function, 'listen');
    assert.equal(bySymbol['function:go/server.go#listen'].name_mismatch, undefined);
    assert.equal(bySymbol['function:go/server.go#Serve'].name_mismatch, 'the trace says Start', 'line 4 is in Serve: the source moved since the trace');
  });

  it('refuses text with no stack frame, saying what to paste', async () => {
    const r = await h.call('trace', { agent_id: 'a', error_text: 'something went wrong' });
    assert.equal(r.result.isError, true);
    assert.equal(r.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
  });

  it('hypothesize confirms a true call claim with its path and refutes a false one', async () => {
    const yes = await h.call('hypothesize', { agent_id: 'a', claim: 'checkout calls add' });
    assert.equal(yes.result.isError, undefined, JSON.stringify(yes.json));
    assert.equal(yes.json.verdict, 'confirmed');
    assert.deepEqual(yes.json.path, ['function:src/cart.ts#checkout -calls-> function:src/cart.ts#total', 'function:src/cart.ts#total -calls-> function:src/math.ts#add']);
    const no = await h.call('hypothesize', { agent_id: 'a', claim: 'add calls checkout' });
    assert.equal(no.json.verdict, 'refuted');
    assert.equal(no.json.search.exhausted, true);
  });

  it('hypothesize confirms a negative claim and refutes a false dependency', async () => {
    const never = await h.call('hypothesize', { agent_id: 'a', claim: 'handleRequest never calls add' });
    assert.equal(never.json.verdict, 'confirmed');
    const dep = await h.call('hypothesize', { agent_id: 'a', claim: 'src/api.ts depends on src/wire.ts' });
    assert.equal(dep.json.verdict, 'refuted');
    assert.equal(dep.json.co_change.support, 7, 'the co-change is reported beside the missing static path');
    const cc = await h.call('hypothesize', { agent_id: 'a', claim: 'src/api.ts changes with src/wire.ts' });
    assert.equal(cc.json.verdict, 'confirmed');
  });

  it('hypothesize co_changes: a subject without commits of its own is untested, one changed often without the object is firmly refuted', async () => {
    const none = await h.call('hypothesize', { agent_id: 'a', claim: 'docs/guide.md changes with src/api.ts' });
    assert.equal(none.json.verdict, 'inconclusive', 'only the initial import and the formatting sweep touched docs/guide.md');
    assert.equal(none.json.co_change.commits_of_subject, 0);
    const apart = await h.call('hypothesize', { agent_id: 'a', claim: 'go/server.go changes with src/api.ts' });
    assert.equal(apart.json.verdict, 'refuted');
    assert.deepEqual([apart.json.co_change.support, apart.json.co_change.commits_of_subject], [0, 6]);
    assert.equal(apart.json.confidence, 0.9, '0 of 6 commits together is the refutation\'s evidence');
    const sameFile = await h.call('hypothesize', { agent_id: 'a', claim: 'total changes with checkout' });
    assert.deepEqual([sameFile.json.subject, sameFile.json.object, sameFile.json.verdict], ['function:src/cart.ts#total', 'function:src/cart.ts#checkout', 'inconclusive'], JSON.stringify(sameFile.json));
  });

  it('panoramic shows blast radius from transitive dependents, centrality and git churn for each file', async () => {
    const r = await h.call('panoramic', { agent_id: 'a' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const math = r.json.files.find((f: any) => f.file === 'src/math.ts');
    assert.equal(math.transitive_dependents, 1, 'src/cart.ts imports it');
    assert.equal(math.commits, 6, 'six cycles; the initial import and the formatting commit are sweeps');
    assert.ok(math.components.blast === 1 && math.components.churn > 0);
    const guide = r.json.files.find((f: any) => f.file === 'docs/guide.md');
    assert.equal(guide.transitive_dependents, 0);
    assert.ok(r.json.files.indexOf(math) < r.json.files.indexOf(guide));
  });

  it('hypothesize says which phrasings it understands when none fits', async () => {
    const r = await h.call('hypothesize', { agent_id: 'a', claim: 'is the cart any good' });
    assert.equal(r.result.isError, true);
    assert.match(r.json.error.hint, /A never calls B/);
  });
});
