/** The quality benchmark's own scoring, on tiny inputs whose answers are worked out by hand. */
import assert from 'node:assert/strict';
import { directCallerIds, isTestPath, mapDeclaration, predictedKey, recallSubsets, sampleDeclarations } from '../../../bench/quality/callers.ts';
import { contentWords, queryWords } from '../../../bench/quality/retrieval.ts';
import { addConfusion, bareName, confusion, firstHitRank, namesSymbol, precisionRecall, retrievalSummary, seededSample } from '../../../bench/quality/scoring.ts';
import type { TruthDeclaration } from '../../../bench/quality/truth-format.ts';
import type { GraphNode } from '../../../plugins/graph/engine/graph.ts';

describe('quality bench scoring', () => {
  it('counts true positives, false positives and false negatives of a predicted set', () => {
    assert.deepEqual(confusion(['a', 'b', 'x'], ['a', 'b', 'c', 'd']), { tp: 2, fp: 1, fn: 2 });
    assert.deepEqual(confusion(['a', 'a'], ['a']), { tp: 1, fp: 0, fn: 0 });
  });

  it('micro-averages by summing counts before dividing', () => {
    // 1/1 and 0/3 precision: the macro mean would be 0.5, the micro mean is 1/4.
    const total = addConfusion(confusion(['a'], ['a']), confusion(['x', 'y', 'z'], ['b']));
    assert.deepEqual(total, { tp: 1, fp: 3, fn: 1 });
    const pr = precisionRecall(total);
    assert.equal(pr.precision, 0.25);
    assert.equal(pr.recall, 0.5);
  });

  it('scores an empty prediction against an empty truth as perfect, and against callers as zero recall', () => {
    assert.deepEqual(precisionRecall(confusion([], [])), { precision: 1, recall: 1 });
    assert.deepEqual(precisionRecall(confusion([], ['a'])), { precision: 1, recall: 0 });
  });

  it('ranks the first hit from 1 and computes hit@1, hit@5 and MRR', () => {
    assert.equal(firstHitRank(['x', 'y', 'a'], (s) => s === 'a'), 3);
    assert.equal(firstHitRank(['x'], (s) => s === 'a'), null);
    const s = retrievalSummary([1, 3, 6, null]);
    assert.equal(s.n, 4);
    assert.equal(s.hit1, 0.25);
    assert.equal(s.hit5, 0.5);
    assert.ok(Math.abs(s.mrr - (1 + 1 / 3 + 1 / 6) / 4) < 1e-12);
  });

  it('matches names across tools by their last segment without private marks or overload suffixes', () => {
    assert.equal(bareName('Migrator.#ensureMigrationsInOrder'), 'ensureMigrationsInOrder');
    assert.equal(bareName('X.header#2'), 'header');
    assert.equal(bareName('run~3'), 'run');
    assert.equal(bareName('plain'), 'plain');
  });

  it('lets an expected name hit a symbol only when it ends the qualified name', () => {
    assert.ok(namesSymbol('Response.redirectMethod', 'HttpConnection.Response.redirectMethod'));
    assert.ok(namesSymbol('Migrator.#ensureMigrationsInOrder', 'Migrator.#ensureMigrationsInOrder'));
    assert.ok(namesSymbol('Migrator.#ensureMigrationsInOrder', 'Migrator.ensureMigrationsInOrder#2'));
    assert.ok(namesSymbol('readAsCSV', 'readAsCSV'));
    assert.ok(!namesSymbol('GZipDecoder.decode', 'IdentityDecoder.decode'));
    assert.ok(!namesSymbol('Response.redirectMethod', 'redirectMethod'));
    assert.ok(!namesSymbol('decode', 'decoder'));
  });

  it('draws the same seeded sample every time, in the original order', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const a = seededSample(items, 10, 9);
    assert.deepEqual(a, seededSample(items, 10, 9));
    assert.equal(new Set(a).size, 10);
    assert.deepEqual(a, [...a].sort((x, y) => x - y));
    assert.notDeepEqual(a, items.slice(0, 10));
    assert.deepEqual(seededSample([1, 2], 10, 9), [1, 2]);
  });

  it('stratifies the sample by kind and tops up from the other kind', () => {
    const decl = (kind: 'function' | 'method', i: number): TruthDeclaration => ({ path: 'a.ts', name: `f${i}`, kind, line: i, startLine: i, endLine: i, callers: [] });
    const decls = [...Array.from({ length: 3 }, (_, i) => decl('function', i)), ...Array.from({ length: 20 }, (_, i) => decl('method', 100 + i))];
    const s = sampleDeclarations(decls, 5, 1);
    assert.equal(s.filter((d) => d.kind === 'function').length, 3);
    assert.equal(s.filter((d) => d.kind === 'method').length, 7);
    const withTests = [...decls, { ...decl('function', 500), path: 'tests/test_a.py' }];
    assert.ok(!sampleDeclarations(withTests, 50, 1).some((d) => d.path === 'tests/test_a.py'));
  });

  it('recognises test files of each language by convention', () => {
    for (const p of ['flag_test.go', 'tests/client/test_auth.py', 'pkg/test_x.py', 'conftest.py', 'src/a.test.ts', 'test/x.ts']) assert.ok(isTestPath(p), p);
    for (const p of ['flag.go', 'httpx/_client.py', 'src/testing-utils.ts', 'src/contest.py']) assert.ok(!isTestPath(p), p);
  });

  it('reads direct callers from impact answers of the current and a split shape, calls only', () => {
    const current = {
      node: { id: 'function:a.ts#f', relation: '<-calls-' },
      blast_radius: [
        { id: 'function:b.ts#g', depth: 1, relation: '<-calls-' },
        { id: 'file:c.ts', depth: 1, relation: '<-imports-' },
        { id: 'function:d.ts#h', depth: 2, relation: '<-calls-' },
      ],
    };
    assert.deepEqual(directCallerIds(current), ['function:b.ts#g']);
    const split = {
      direct: [
        { id: 'method:e.ts#K.m', relation: 'calls' },
        { id: 'file:x_test.go', relation: 'calls+tests' },
        { id: 'file:x.ts', relation: 'imports' },
        { id: 'file:y.ts', relation: 'tests' },
      ],
      transitive: { count: 4 },
    };
    assert.deepEqual(directCallerIds(split), ['method:e.ts#K.m', 'file:x_test.go']);
  });

  it('maps a declaration to the node whose span holds its name line, preferring the innermost', () => {
    const node = (id: string, kind: GraphNode['kind'], label: string, startLine: number, endLine: number): GraphNode => ({ id, kind, label, qualifiedName: label, path: 'a.ts', startLine, endLine, language: 'typescript' }) as GraphNode;
    const byPath = new Map([['a.ts', [node('function:a.ts#run', 'function', 'run', 1, 3), node('function:a.ts#run~2', 'function', 'run', 10, 20), node('function:a.ts#other', 'function', 'other', 10, 20)]]]);
    const d: TruthDeclaration = { path: 'a.ts', name: 'run', kind: 'function', line: 12, startLine: 10, endLine: 20, callers: [] };
    assert.equal(mapDeclaration(byPath, d)?.id, 'function:a.ts#run~2');
    assert.equal(mapDeclaration(byPath, { ...d, name: 'missing' }), null);
  });

  it('matches an m1nd caller to the true caller by path, name and line, a constructor to its class', () => {
    const node = (kind: GraphNode['kind'], qualifiedName: string, startLine: number, endLine: number, path = 'a.ts'): GraphNode =>
      ({ id: `${kind}:${path}#${qualifiedName}`, kind, label: qualifiedName.split('.').pop()!, qualifiedName, path, startLine, endLine, language: 'typescript' }) as GraphNode;
    const truth = [
      { path: 'a.ts', name: 'K', line: 3 },
      { path: 'a.ts', name: 'K.run', line: 20 },
      { path: 'a.ts', name: 'inner', line: 32 },
      { path: 'b.ts', name: null, line: 0 },
    ];
    assert.equal(predictedKey(node('method', 'K.run', 20, 25), truth), 'a.ts:20');
    assert.equal(predictedKey(node('method', 'K.run', 40, 45), truth), 'm1nd:method:a.ts#K.run');
    assert.equal(predictedKey(node('method', 'K.constructor', 5, 9), truth), 'a.ts:3');
    assert.equal(predictedKey(node('file', 'b.ts', 1, 50, 'b.ts'), truth), 'b.ts:0');
    const counts = { enclosing: 0 };
    assert.equal(predictedKey(node('method', 'K.outer', 30, 38), truth, counts), 'a.ts:32');
    assert.equal(counts.enclosing, 1);
  });

  it('matches a Python class caller (decorators in its body) to the function it is defined in, or its module', () => {
    const node = (qualifiedName: string, startLine: number, endLine: number): GraphNode =>
      ({ id: `class:t.py#${qualifiedName}`, kind: 'class', label: qualifiedName.split('.').pop()!, qualifiedName, path: 't.py', startLine, endLine, language: 'python' }) as GraphNode;
    const truth = [
      { path: 't.py', name: 'test_one', line: 10 },
      { path: 't.py', name: 'Suite.test_two', line: 30 },
      { path: 't.py', name: null, line: 0 },
    ];
    assert.equal(predictedKey(node('test_one.S', 12, 16), truth), 't.py:10');
    assert.equal(predictedKey(node('Suite.test_two.S', 32, 36), truth), 't.py:30');
    assert.equal(predictedKey(node('Top', 50, 60), truth), 't.py:0');
  });

  it('counts direct callers, and direct plus reachable dispatch callers, apart from siblings', () => {
    const truth = [
      { path: 'a.ts', name: 'direct', line: 1 },
      { path: 'a.ts', name: 'viaInterface', line: 5, dispatch: true, reachable: true },
      { path: 'a.ts', name: 'viaSibling', line: 9, dispatch: true, reachable: false },
      { path: 'b.ts', name: 'viaBase', line: 2, dispatch: true, reachable: true },
    ];
    // Found: the direct caller, one reachable dispatch caller and the sibling (which no subset counts).
    const { direct, reachable } = recallSubsets(truth, new Set(['a.ts:1', 'a.ts:5', 'a.ts:9']));
    assert.deepEqual(direct, { truth: 1, found: 1 });
    assert.deepEqual(reachable, { truth: 3, found: 2 });
    assert.deepEqual(recallSubsets(truth, new Set()).reachable, { truth: 3, found: 0 });
  });

  it('takes the words of a question for the baseline, three letters or more', () => {
    assert.deepEqual(queryWords('How is the URL path normalized, is it?'), ['how', 'the', 'url', 'path', 'normalized']);
    assert.deepEqual(contentWords('How is the URL path normalized, is it?'), ['url', 'path', 'normalized']);
  });
});
