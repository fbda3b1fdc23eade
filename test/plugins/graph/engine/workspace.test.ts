import { strict as assert } from 'node:assert';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { resolveWorkspacePath } from '../../../../plugins/graph/engine/workspace.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';

describe('resolveWorkspacePath', () => {
  let root: string;
  let outside: string;
  before(() => {
    root = writeWorkspace({ 'src/a.ts': 'x', '..odd/name.ts': 'x' });
    outside = writeWorkspace({ 'secret.txt': 's' });
    symlinkSync(join(outside, 'secret.txt'), join(root, 'src', 'leak.txt'));
    symlinkSync(outside, join(root, 'linkdir'));
    symlinkSync(join(root, 'src', 'a.ts'), join(root, 'inner-link.ts'));
    mkdirSync(join(root, 'empty'));
  });
  after(() => {
    removeWorkspace(root);
    removeWorkspace(outside);
  });

  it('resolves relative and absolute paths inside the root', () => {
    assert.deepEqual(resolveWorkspacePath(root, 'src/a.ts'), { absolute: join(root, 'src/a.ts'), relative: 'src/a.ts' });
    assert.equal(resolveWorkspacePath(root, join(root, 'src/a.ts')).relative, 'src/a.ts');
    assert.equal(resolveWorkspacePath(root, './src/../src/a.ts').relative, 'src/a.ts');
    assert.equal(resolveWorkspacePath(root, '..odd/name.ts').relative, '..odd/name.ts');
    assert.equal(resolveWorkspacePath(root, 'src/not-yet.ts').relative, 'src/not-yet.ts');
    assert.equal(resolveWorkspacePath(root, 'inner-link.ts').relative, 'inner-link.ts');
  });

  it('refuses `..` escapes, naming the root', () => {
    assert.throws(() => resolveWorkspacePath(root, '../x'), (e: Error & { code?: string }) => e.code === 'M1ND_ERR_PATH_ESCAPE' && e.message.includes(root));
    assert.throws(() => resolveWorkspacePath(root, 'src/../../x'), /outside the workspace root/);
  });

  it('refuses absolute paths outside the root', () => {
    assert.throws(() => resolveWorkspacePath(root, '/etc/passwd'), /is absolute, outside the workspace root/);
  });

  it('refuses symlinks whose real path leaves the root, even for paths below them', () => {
    assert.throws(() => resolveWorkspacePath(root, 'src/leak.txt'), /symlink/);
    assert.throws(() => resolveWorkspacePath(root, 'linkdir/secret.txt'), /symlink/);
    assert.throws(() => resolveWorkspacePath(root, 'linkdir/new-file.txt'), /symlink/);
  });

  it('refuses NUL bytes', () => {
    assert.throws(() => resolveWorkspacePath(root, 'src/a.ts\0'), /not a valid path/);
  });
});
