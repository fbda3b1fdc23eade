import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitignoreRules } from '../../../../plugins/graph/engine/watch-rules.ts';

describe('GitignoreRules', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'm1nd-watch-rules-'));
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    mkdirSync(join(root, 'c'), { recursive: true });
    writeFileSync(join(root, '.gitignore'), '*.log\n');
    writeFileSync(join(root, 'a', '.gitignore'), 'gen/\nsecret.ts\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const paths = ['a/b/x.ts', 'a/secret.ts', 'a/b/secret.ts', 'c/y.log', 'c/z.ts', 'a/gen/k.ts'];

  it('answers from rules read ahead by prefetch, as the on-demand reads do', async () => {
    const onDemand = new GitignoreRules(root);
    const expected = paths.map((p) => onDemand.ignores(p, false));
    assert.deepEqual(expected, [false, true, true, true, false, true]);
    const ahead = new GitignoreRules(root);
    await ahead.prefetch(paths.map((p) => join(root, p)));
    // The files are gone: only rules read by prefetch can still give the same answers.
    rmSync(join(root, '.gitignore'));
    rmSync(join(root, 'a', '.gitignore'));
    assert.deepEqual(paths.map((p) => ahead.ignores(p, false)), expected);
    assert.equal(new GitignoreRules(root).ignores('a/secret.ts', false), false);
  });

  it('drops what it read ahead when a .gitignore changed meanwhile (refresh)', async () => {
    const rules = new GitignoreRules(root);
    const reading = rules.prefetch(paths.map((p) => join(root, p)));
    rules.refresh(); // a .gitignore event arrived while the batch's files were being read
    await reading;
    // What that read returned is not kept: the rules are read again, as they are now.
    writeFileSync(join(root, 'a', '.gitignore'), 'other.ts\n');
    assert.equal(rules.ignores('a/secret.ts', false), false);
    assert.equal(rules.ignores('a/other.ts', false), true);
  });
});
