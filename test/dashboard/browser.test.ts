/**
 * The dashboard in a real browser: Debian's Chromium driven by playwright-core against
 * `m1nd serve --http` over a fixture workspace where two agents (MCP SDK clients) left calls,
 * claims, a mission, overlapping locks and an alert. Each view must show that state, update live
 * when an agent calls a verb, render agent strings as text, keep the token gate shut, and never trip
 * the Content-Security-Policy. Screenshots of each view go to test-output/dashboard/ (gitignored).
 * Without /usr/bin/chromium the suite is skipped locally and fails on CI (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page, type Response } from 'playwright-core';
import { CHROMIUM, FRESH_TEXT, SHOTS, STALE_TEXT, TOKENS, XSS_TEXT, ensureUiBuilt, ok, scenario, type Scenario } from './browser-fixture.ts';

interface Opened {
  page: Page;
  dialogs: string[];
  /** The response to the page's first load (its headers carry the CSP). */
  response: Response | null;
}

/** Polls `check` from the test (a page-side predicate would need eval, which the page's CSP forbids). */
async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the dashboard in Chromium (playwright-core) against m1nd serve --http', function () {
  this.timeout(120_000);
  let s: Scenario | undefined;
  let browser: Browser | undefined;
  const opened: Opened[] = [];
  /** Alice's tab (a write token), shared by the view tests: one login, views switched through the nav. */
  let alice: Opened;

  before(async function () {
    this.timeout(240_000);
    if (!fs.existsSync(CHROMIUM)) {
      if (process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium (apt-get install -y chromium) before the tests`);
      console.warn(`  dashboard browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
      this.skip();
    }
    ensureUiBuilt();
    [s, browser] = await Promise.all([scenario(), chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true })]);
    fs.mkdirSync(SHOTS, { recursive: true });
    alice = await open(TOKENS.alice);
  });

  afterEach(async function () {
    // A failed view leaves its picture behind for whoever reads the failure.
    const last = opened[opened.length - 1];
    if (this.currentTest?.state === 'failed' && last) await last.page.screenshot({ path: path.join(SHOTS, `failed-${opened.length}.png`) }).catch(() => undefined);
  });

  after(async () => {
    await browser?.close();
    await s?.close();
  });

  /** A fresh tab (its own sessionStorage) at 1280×720, logged in with `token` when given. */
  async function open(token?: string, hash = ''): Promise<Opened> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // Runs before the page's scripts, outside its CSP: records every policy violation. (Code run in
    // the page is passed as text: the server's tsconfig has no DOM types.)
    await page.addInitScript(`window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`);
    const response = await page.goto(s!.served.base + hash);
    if (token) {
      await page.locator('#token').fill(token);
      await page.locator('#token').press('Enter');
      await page.locator('nav[aria-label="Views"]').waitFor();
    }
    const o = { page, dialogs, response };
    opened.push(o);
    return o;
  }

  async function view(page: Page, name: string): Promise<void> {
    await page.locator(`nav[aria-label="Views"] a[href="#/${name}"]`).click();
    await page.locator(`main[data-view="${name}"]`).waitFor();
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
    // Fits a laptop screen: nothing scrolls sideways at 1280 px.
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(width <= 1280, `${name}: the page is ${width} px wide at a 1280 px viewport`);
  }

  it('shows a page without a token only the token prompt, refuses a wrong token and opens with a right one kept for the tab', async () => {
    const { page } = await open();
    await page.locator('#token').waitFor();
    await shot(page, '0-token-prompt');
    const text = await page.locator('body').innerText();
    assert.equal(await page.locator('nav').count(), 0, 'no navigation before a token');
    for (const secret of [s!.served.workspace, 'alice', FRESH_TEXT, 'lock_']) assert.ok(!text.includes(secret), `the prompt shows nothing of the data (${secret})`);
    const unauthenticated = await page.evaluate<number>(`fetch('api/overview').then((r) => r.status)`);
    assert.equal(unauthenticated, 401);

    await page.locator('#token').fill('not-a-token-0123456789');
    await page.locator('#token').press('Enter');
    await page.locator('#token-refused').waitFor();
    assert.equal(await page.locator('nav').count(), 0, 'still nothing after a refused token');

    await page.locator('#token').fill(TOKENS.alice);
    await page.locator('#token').press('Enter');
    await page.locator('nav[aria-label="Views"]').waitFor();
    assert.equal(await page.evaluate<string | null>(`sessionStorage.getItem('m1nd.dashboard.token')`), TOKENS.alice);
    await page.reload();
    await page.locator('nav[aria-label="Views"]').waitFor();
    assert.equal(await page.locator('#token').count(), 0, 'a reload in the same tab keeps the token');
  });

  it('Overview shows the workspace, the ingested graph, the verbs and the plugins', async () => {
    const { page } = alice;
    await view(page, 'overview');
    const nodes = page.locator('[data-testid="graph-nodes"]');
    await nodes.waitFor();
    const shown = Number((await nodes.innerText()).replace(/,/g, ''));
    assert.ok(shown > 10, `graph nodes shown: ${shown}`);
    const text = await page.locator('main').innerText();
    assert.ok(text.includes(s!.served.workspace), 'the workspace path');
    assert.match(text, /ready/);
    assert.match(text, /memory/, 'the plugins table lists the memory plugin');
    await shot(page, '1-overview');
  });

  it('Agents shows both agents with calls per verb, and counts a call live when an MCP client makes it', async () => {
    const { page } = alice;
    await view(page, 'agents');
    const bobCalls = page.locator('tr[data-agent="bob"] td[data-col="calls"]');
    await bobCalls.waitFor();
    await page.locator('tr[data-agent="alice"]').waitFor();
    const before = Number(await bobCalls.innerText());
    assert.ok(before >= 3, `bob's calls: ${before}`);
    await page.locator('tr[data-agent="alice"] button').click();
    await page.locator('#ag-verbs', { hasText: 'lock_create' }).waitFor();
    await page.locator('#ag-last', { hasText: 'daemon_tick' }).waitFor();
    await shot(page, '2-agents');

    await ok(s!.bob, 'seek', { agent_id: 'bob', query: 'retry' });
    await until(`bob's calls exceed ${before}`, async () => Number(await bobCalls.innerText()) > before);
  });

  it('Memory shows claims with scope, author and evidence, the stale one highlighted with what changed, filters, and a new claim live', async () => {
    const { page } = alice;
    await view(page, 'memory');
    const fresh = page.locator(`li.claim[data-claim="${s!.freshClaimId}"]`);
    const stale = page.locator(`li.claim[data-claim="${s!.staleClaimId}"]`);
    await fresh.waitFor();
    assert.equal(await fresh.getAttribute('data-freshness'), 'fresh');
    assert.match(await fresh.innerText(), /by alice/);
    assert.ok((await fresh.locator('.evidence a').first().innerText()).startsWith('src/cart.ts'));
    assert.equal(await stale.getAttribute('data-freshness'), 'stale');
    assert.ok((await stale.getAttribute('class'))!.includes('claim-stale'));
    assert.match(await stale.locator('.changed').innerText(), /src\/math\.ts|add/);
    assert.ok((await stale.innerText()).includes(STALE_TEXT));
    await page.locator('#mem-missions', { hasText: 'review the cart checkout' }).waitFor();
    await shot(page, '3-memory');

    await page.locator('select[name="state"]').selectOption('stale');
    const claims = page.locator('li.claim');
    await until('only the stale claim is listed', async () => (await claims.evaluateAll((els) => els.map((e) => e.getAttribute('data-freshness')))).join() === 'stale');
    await page.locator('select[name="state"]').selectOption('all');
    await page.locator('input[name="q"]').fill('cart prices');
    await until('the search finds the fresh claim alone', async () => (await claims.evaluateAll((els) => els.map((e) => e.getAttribute('data-claim')))).join() === s!.freshClaimId);
    await page.locator('input[name="q"]').fill('');

    const live = 'checkout totals the items through total';
    await ok(s!.alice, 'memorize', { agent_id: 'alice', claims: [{ text: live, evidence: ['src/cart.ts:8-12'] }] });
    await page.locator('li.claim', { hasText: live }).waitFor({ timeout: 10_000 });
  });

  it('renders a claim whose text is HTML as text: no img element, no dialog, no CSP violation', async () => {
    const o = alice;
    const csp = o.response!.headers()['content-security-policy'] ?? '';
    await view(o.page, 'memory');
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    const claim = o.page.locator('li.claim .claim-text', { hasText: XSS_TEXT });
    await claim.waitFor();
    assert.equal(await claim.innerText(), XSS_TEXT);
    await o.page.waitForTimeout(300);
    assert.equal(await o.page.locator('img').count(), 0, 'no img element anywhere');
    assert.deepEqual(o.dialogs, []);
  });

  it('Locks & alerts shows the overlapping locks and the stale-claim alert, and a write token acknowledges it', async () => {
    const { page } = alice;
    await view(page, 'locks');
    for (const id of s!.locks) {
      const row = page.locator(`tr[data-lock="${id}"]`);
      await row.waitFor();
      const other = s!.locks.find((l) => l !== id)!;
      assert.ok((await row.innerText()).includes(other), `${id} lists its overlap with ${other}`);
    }
    const alert = page.locator('tr[data-alert]', { hasText: 'claim_stale' }).first();
    await alert.waitFor();
    await shot(page, '4-locks-alerts');
    const button = alert.locator('button', { hasText: 'Ack' });
    assert.equal(await button.isEnabled(), true);
    const id = await alert.getAttribute('data-alert');
    await page.locator('select').first().selectOption('all');
    await button.click();
    await page.locator(`tr[data-alert="${id}"]`, { hasText: 'alice' }).waitFor({ timeout: 10_000 });
  });

  it('shows a read-only token the Ack button disabled with the reason', async () => {
    const { page } = await open(TOKENS.viewer);
    await view(page, 'locks');
    await page.locator('select').first().selectOption('all');
    const button = page.locator('tr[data-alert] button', { hasText: 'Ack' }).first();
    await button.waitFor();
    if (await button.isEnabled()) await button.click();
    await page.locator('#ack-blocked').waitFor({ timeout: 10_000 });
    assert.equal(await button.isEnabled(), false);
    assert.match(await page.locator('#ack-blocked').innerText(), /read|write|refused/i);
    await shot(page, '5-alerts-read-only');
  });

  it('Graph finds a node, draws its neighbourhood with roles, opens the source at a clicked node, and draws impact and why', async () => {
    const { page } = alice;
    await view(page, 'graph');
    await page.locator('#node-search').fill('add');
    await page.locator('.results button[data-node="function:src/math.ts#add"]').click();
    await page.locator('.canvas[data-ready="true"]').waitFor();
    const callers = page.locator('.node-list button[data-role="caller"]');
    await callers.first().waitFor();
    const callerNames = await callers.allInnerTexts();
    assert.ok(callerNames.some((t) => /\bmul\b/.test(t)) && callerNames.some((t) => /\btotal\b/.test(t)), `callers: ${callerNames}`);

    // The layout puts the centre node in the middle of the canvas: a click there opens its source.
    await page.locator('.node-list button[data-node="function:src/cart.ts#total"]').click();
    await page.locator('#gr-source figcaption', { hasText: 'src/cart.ts' }).waitFor();
    await page.locator('.canvas').scrollIntoViewIfNeeded();
    const box = (await page.locator('.canvas').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.locator('#gr-source figcaption', { hasText: 'src/math.ts' }).waitFor();
    const here = page.locator('#gr-source tr.here');
    await here.waitFor();
    assert.match(await here.innerText(), /function add/);

    await page.locator('button', { hasText: 'Impact' }).click();
    const impact = page.locator('#gr-impact');
    await impact.waitFor();
    assert.match(await impact.innerText(), /total/);
    await page.locator('.actions input[list="why-targets"]').fill('testTotal');
    await page.locator('.actions button[type="submit"]').click();
    const why = page.locator('#gr-why');
    await why.waitFor();
    assert.match(await why.innerText(), /hop/);
    await shot(page, '6-graph');
  });

  it('is usable from the keyboard: a skip link, the view tabs reached with Tab and opened with Enter, focus always visible', async () => {
    const { page } = alice;
    await view(page, 'overview');
    await page.locator('a.skip').focus();
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate<string>('document.activeElement.id'), 'main', 'the skip link moves focus to the content');
    await page.locator('a.skip').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate<string>('document.activeElement.textContent'), 'Agents');
    assert.equal(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle'), 'solid', 'the focused tab shows an outline');
    await page.keyboard.press('Enter');
    await page.locator('main[data-view="agents"]').waitFor();
    assert.equal(await page.locator('nav a[aria-current="page"]').innerText(), 'Agents');
  });

  it('never trips the Content-Security-Policy and never opens a dialog in any tab', async () => {
    assert.ok(opened.length >= 3);
    for (const o of opened) {
      const violations = await o.page.evaluate<string[]>('window.__csp');
      assert.deepEqual(violations, [], `CSP violations on ${o.page.url()}`);
      assert.deepEqual(o.dialogs, []);
    }
  });
});
