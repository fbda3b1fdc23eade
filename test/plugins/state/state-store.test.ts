/** The PostgreSQL state store on its own: compare-and-swap, transactions, change feed, schema guard, redaction; and repository identity. */
import assert from 'node:assert/strict';
import pg from 'pg';
import { memoryLogger } from '../../helpers/mcp.ts';
import { pgOrSkip } from '../../helpers/pg.ts';
import { normaliseRemote, redactUrl } from '../../../plugins/state/api.ts';
import { PgStateStore } from '../../../plugins/state/postgres.ts';
import type { StateChange } from '../../../plugins/state/types.ts';

describe('repository identity', function () {
  it('reduces the spellings of one remote to the same host/path', () => {
    const same = ['git@github.com:Org/Repo.git', 'https://user:secret@GitHub.com/Org/Repo', 'ssh://git@github.com:22/Org/Repo.git', 'https://github.com/Org/Repo.git/'];
    assert.deepEqual([...new Set(same.map((u) => normaliseRemote(u)))], ['github.com/Org/Repo']);
    assert.notEqual(normaliseRemote('git@github.com:Org/Other.git'), normaliseRemote('git@github.com:Org/Repo.git'));
    assert.equal(normaliseRemote('../origin.git', '/work/a'), '/work/origin');
  });
});

describe('the PostgreSQL state store', function () {
  this.timeout(120_000);
  let url: string;
  const stores: PgStateStore[] = [];
  const open = (repo = 'id:unit', u = url, cacheRows = 0) => {
    const s = new PgStateStore({ url: u, log: memoryLogger(), repository: async () => repo, cacheRows });
    stores.push(s);
    return s;
  };

  before(async function () {
    const base = await pgOrSkip(this);
    const name = `m1nd_unit_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${name}`;
    url = u.toString();
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  it('compares and swaps: create-if-absent once, update only at the version read', async () => {
    const s = open();
    const first = await s.put('ns', 'k', { n: 1 }, { ifVersion: null });
    assert.equal(first?.version, 1);
    assert.equal(await s.put('ns', 'k', { n: 2 }, { ifVersion: null }), null, 'the key exists');
    const second = await s.put('ns', 'k', { n: 2 }, { ifVersion: 1 });
    assert.equal(second?.version, 2);
    assert.equal(await s.put('ns', 'k', { n: 3 }, { ifVersion: 1 }), null, 'a stale version writes nothing');
    assert.deepEqual((await s.get('ns', 'k'))?.value, { n: 2 });
    assert.equal(await s.delete('ns', 'k', { ifVersion: 1 }), false);
    assert.equal(await s.delete('ns', 'k', { ifVersion: 2 }), true);
  });

  it('writes all of a transaction or nothing, and keeps repositories apart', async () => {
    const s = open();
    await assert.rejects(
      s.transaction(async (tx) => {
        await tx.put('ns', 'a', 1);
        await tx.put('ns', 'b', 2);
        throw new Error('abort');
      }),
      /abort/,
    );
    assert.deepEqual(await s.list('ns'), []);
    await s.transaction(async (tx) => {
      await tx.put('ns', 'a', 1);
      await tx.put('ns', 'b', 2);
    });
    assert.deepEqual((await s.list('ns')).map((r) => r.key), ['a', 'b']);
    assert.deepEqual(await open('id:other').list('ns'), [], 'another repository sees none of it');
  });

  it('pushes committed changes to other servers of the same repository, marked remote', async () => {
    const writer = open();
    const reader = open();
    await reader.status(); // connects and starts listening
    const seen: StateChange[] = [];
    reader.onChange((c) => seen.push(c));
    await new Promise((r) => setTimeout(r, 300));
    await writer.put('feed', 'x', true);
    await open('id:other').put('feed', 'y', true);
    for (let i = 0; i < 40 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(seen, [{ namespace: 'feed', key: 'x', op: 'put', remote: true }]);
  });

  it('serves repeated reads from its cache while the feed is up, drops them when any server writes, and still compares versions against the database', async () => {
    const until = async (cond: () => boolean | Promise<boolean>, what: string) => {
      for (let i = 0; i < 100; i++) if (await cond()) return;
      assert.fail(`timed out waiting: ${what}`);
    };
    const cached = open('id:cache', url, 100);
    const other = open('id:cache');
    await cached.status();
    await until(async () => cached.feed !== 0 || (await new Promise((r) => setTimeout(r, 50, false))), 'the change feed');
    const written = await cached.put('c', 'k', { n: 1 });
    const misses = cached.cache.misses;
    assert.deepEqual((await cached.get<{ n: number }>('c', 'k'))?.value, { n: 1 });
    const copy = await cached.get<{ n: number }>('c', 'k');
    assert.equal(cached.cache.misses, misses + 1, 'the second read came from memory');
    assert.equal(cached.cache.hits, 1);
    copy!.value.n = 99;
    assert.deepEqual((await cached.get('c', 'k'))?.value, { n: 1 }, 'callers get copies');

    // Another server writes: the notification drops the entry, the next read sees the new row.
    await other.put('c', 'k', { n: 2 });
    await until(async () => ((await cached.get<{ n: number }>('c', 'k'))?.value.n === 2) || (await new Promise((r) => setTimeout(r, 20, false))), 'the remote write to be seen');
    // A write made from a stale read is refused by the database, whatever the cache held.
    assert.equal(await cached.put('c', 'k', { n: 3 }, { ifVersion: written!.version }), null);
    assert.deepEqual((await other.get('c', 'k'))?.value, { n: 2 });

    // A fence (the start of a call) makes the next read wait until the feed has caught up: a write another
    // server acknowledged just before is never read stale, with no pause in between.
    for (let i = 10; i < 30; i++) {
      assert.deepEqual((await cached.get<{ n: number }>('c', 'k'))?.value.n, i === 10 ? 2 : i - 1, 'cached before the write');
      await other.put('c', 'k', { n: i });
      cached.fence();
      assert.equal((await cached.get<{ n: number }>('c', 'k'))?.value.n, i, `round ${i}: the write acknowledged before the fence is seen`);
    }

    // The feed lost: nothing cached before is served again (notifications may have been missed meanwhile).
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const feed = cached.feed;
    const listener = (cached as unknown as { listener: pg.Client & { processID: number } }).listener;
    await db.query('SELECT pg_terminate_backend($1)', [listener.processID]);
    await db.query("UPDATE m1nd_state SET value = '{\"n\": 4}' WHERE repo = 'id:cache' AND namespace = 'c' AND key = 'k'");
    await db.end();
    await until(async () => cached.feed !== feed || (await new Promise((r) => setTimeout(r, 50, false))), 'the feed to notice');
    assert.deepEqual((await cached.get('c', 'k'))?.value, { n: 4 });
  });

  it('refuses to write to a schema newer than it knows, and still reads', async () => {
    const s = open();
    await s.put('ns', 'before', 1);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query("INSERT INTO m1nd_schema (version, name) VALUES (99, 'from the future')");
    await db.end();
    const late = open();
    assert.equal((await late.get('ns', 'before'))?.value, 1);
    await assert.rejects(late.put('ns', 'after', 2), (e: any) => e.code === 'M1ND_ERR_STORE_SCHEMA_NEWER' && /upgrade m1nd/.test(e.hint));
    assert.equal((await late.status()).schema_version, 99);
  });

  it('never shows the password of the URL, in errors or status', async () => {
    const bad = new URL(url);
    bad.password = 'hunter2-secret';
    bad.port = '1'; // nothing listens there
    const s = open('id:unit', bad.toString());
    await assert.rejects(s.get('ns', 'k'), (e: any) => e.code === 'M1ND_ERR_STORE_UNAVAILABLE' && !JSON.stringify({ m: e.message, h: e.hint, d: e.data }).includes('hunter2') && e.data.retry_after_ms > 0);
    const status = await s.status();
    assert.equal(status.connected, false);
    assert.ok(!JSON.stringify(status).includes('hunter2'));
    assert.equal(redactUrl('postgres://me:pw@db.example:5433/team?sslmode=require'), 'postgres://db.example:5433/team');
  });
});
