import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../helpers/mcp.ts';
import { journalDir, recoverJournals } from '../../../plugins/edit/journal.ts';

/** Writes a journal as writeBatchAtomic leaves it at a crash. */
function journal(store: string, state: 'renaming' | 'committed', entries: { target: string; temp: string; backup: string | null }[]): void {
  fs.mkdirSync(journalDir(store), { recursive: true });
  fs.writeFileSync(path.join(journalDir(store), 'batch_x.json'), JSON.stringify({ batch_id: 'batch_x', agent_id: 'a', started_at: 0, state, entries }));
}

describe('batch journal recovery', function () {
  it('rolls an interrupted batch back: renamed files restored, created files removed, leftovers deleted', () => {
    const ws = tempDir();
    const store = path.join(ws, '.m1nd');
    const f = (n: string) => path.join(ws, n);
    fs.writeFileSync(f('a.ts'), 'new a'); // renamed before the crash
    fs.writeFileSync(f('bak-a'), 'old a');
    fs.writeFileSync(f('b.ts'), 'old b'); // not renamed yet
    fs.linkSync(f('b.ts'), f('bak-b'));
    fs.writeFileSync(f('tmp-b'), 'new b');
    fs.writeFileSync(f('c.ts'), 'created'); // a created file, renamed
    journal(store, 'renaming', [
      { target: f('a.ts'), temp: f('tmp-a'), backup: f('bak-a') },
      { target: f('b.ts'), temp: f('tmp-b'), backup: f('bak-b') },
      { target: f('c.ts'), temp: f('tmp-c'), backup: null },
    ]);
    const done = recoverJournals(store);
    assert.deepEqual(done.map((d) => d.outcome), ['rolled_back']);
    assert.equal(fs.readFileSync(f('a.ts'), 'utf8'), 'old a');
    assert.equal(fs.readFileSync(f('b.ts'), 'utf8'), 'old b');
    assert.equal(fs.existsSync(f('c.ts')), false);
    assert.deepEqual(fs.readdirSync(ws).sort(), ['.m1nd', 'a.ts', 'b.ts', 'package.json']);
    assert.deepEqual(fs.readdirSync(journalDir(store)), []);
    assert.deepEqual(recoverJournals(store), [], 'recovery runs once');
  });

  it('completes a batch whose journal says every rename finished: new contents kept, backups dropped', () => {
    const ws = tempDir();
    const store = path.join(ws, '.m1nd');
    const f = (n: string) => path.join(ws, n);
    fs.writeFileSync(f('a.ts'), 'new a');
    fs.writeFileSync(f('bak-a'), 'old a');
    journal(store, 'committed', [{ target: f('a.ts'), temp: f('tmp-a'), backup: f('bak-a') }]);
    assert.deepEqual(recoverJournals(store).map((d) => d.outcome), ['completed']);
    assert.equal(fs.readFileSync(f('a.ts'), 'utf8'), 'new a');
    assert.equal(fs.existsSync(f('bak-a')), false);
  });
});
