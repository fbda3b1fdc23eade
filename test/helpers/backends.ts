/**
 * Runs a suite against both state backends: the embedded SQLite store and PostgreSQL (a test
 * cluster, see pg.ts). Inside the PostgreSQL variant, connect() gives every host M1ND_STORE_URL.
 */
import { pgOrSkip } from './pg.ts';

let storeUrl: string | undefined;

/** The team store URL hosts started now should use (undefined: embedded). */
export function activeStoreUrl(): string | undefined {
  return storeUrl;
}

/** `describe(title)` once per backend, `[sqlite]` and `[postgres]`. */
export function describeBackends(title: string, body: (this: Mocha.Suite, backend: 'sqlite' | 'postgres') => void): void {
  describe(`${title} [sqlite]`, function () {
    body.call(this, 'sqlite');
  });
  describe(`${title} [postgres]`, function () {
    before(async function () {
      this.timeout(120_000);
      storeUrl = await pgOrSkip(this);
    });
    after(() => {
      storeUrl = undefined;
    });
    body.call(this, 'postgres');
  });
}
