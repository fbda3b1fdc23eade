import { strict as assert } from 'node:assert';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleDir } from '../../../plugins/structure/facts-pool.ts';

describe('the facts worker bundle directory', () => {
  let base: string;
  let savedTmp: string | undefined;
  beforeEach(() => {
    savedTmp = process.env.TMPDIR;
    base = mkdtempSync(join(tmpdir(), 'm1nd-bundle-dir-'));
    process.env.TMPDIR = base;
  });
  afterEach(() => {
    process.env.TMPDIR = savedTmp;
    rmSync(base, { recursive: true, force: true });
  });
  const shared = (): string => join(base, `m1nd-bundles-${process.getuid!()}`);
  const mode = (dir: string): number => lstatSync(dir).mode & 0o777;

  it("makes and reuses this user's own directory, closed to everyone else", function () {
    if (!process.getuid) this.skip();
    assert.equal(bundleDir(), shared());
    assert.equal(mode(shared()), 0o700);
    assert.equal(bundleDir(), shared(), 'the same directory again (bundles are reused across processes)');
  });

  it('does not use a directory of that name that others can write to, nor a symlink', function () {
    if (!process.getuid) this.skip();
    mkdirSync(shared(), { mode: 0o700 });
    chmodSync(shared(), 0o777);
    const instead = bundleDir();
    assert.notEqual(instead, shared());
    assert.match(instead, /m1nd-bundles-[A-Za-z0-9]{6}$/);
    assert.equal(mode(instead), 0o700);

    rmSync(shared(), { recursive: true });
    const elsewhere = mkdtempSync(join(base, 'other-'));
    symlinkSync(elsewhere, shared());
    const notLinked = bundleDir();
    assert.notEqual(notLinked, shared());
    assert.notEqual(notLinked, elsewhere);
    assert.equal(mode(notLinked), 0o700);
  });
});
