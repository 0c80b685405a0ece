import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, collectPageProblems, keepScreenshot, launchBrowser } from '../helpers/browser.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/** The merchant's site the customer returns to: another origin, answering every path with a small page. */
async function startMerchantSite(): Promise<{ url: string; close(): Promise<void> }> {
  const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Shop</title><h1>Back at the shop</h1>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const { port } = site.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => site.close(() => resolve())) };
}

forEachDatabase('the authentication page in a real browser (3-D Secure by redirect)', function (engine) {
  let browser: Browser;
  let merchant: Awaited<ReturnType<typeof startMerchantSite>>;

  before(function () {
    if (!browserAvailable()) this.skip();
  });
  after(async () => {
    await browser?.close();
    await merchant?.close();
  });
  const server = useTestServer(engine, {}, { per: 'suite' });
  before(async function () {
    this.timeout(60_000);
    browser = await launchBrowser();
    merchant = await startMerchantSite();
  });
  beforeEach(function () {
    this.currentTest?.timeout(60_000);
  });

  /** An intent of 20.00 USD confirmed with a card that asks for authentication, and the page it sends the customer to. */
  async function anIntentToAuthenticate(): Promise<{ intent: any; pageUrl: string }> {
    const created = await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', return_url: `${merchant.url}/done?order=6735` });
    const confirmed = await server.api.post(`/v1/payment_intents/${created.body.id}/confirm`, { payment_method: 'pm_card_authenticationRequired' });
    expect(confirmed.body.next_action.type).to.equal('redirect_to_url');
    return { intent: confirmed.body, pageUrl: confirmed.body.next_action.redirect_to_url.url };
  }

  /** Opens the page, checks what it shows and that it broke no rule of the page (CSP included), and clicks `button`. */
  async function answer(page: Page, pageUrl: string, button: 'Complete' | 'Fail'): Promise<URL> {
    const problems = await collectPageProblems(page, server.url);
    await page.goto(pageUrl);
    expect(await page.locator('header.site-header').count(), 'the shared header').to.equal(1);
    expect(await page.locator('[data-field="amount"]').textContent()).to.equal('$20.00');
    expect(await page.locator('[data-field="merchant"]').textContent()).to.be.a('string').and.not.equal('');
    const styled = await page.locator('button[value="succeeded"]').evaluate((b) => (globalThis as any).getComputedStyle(b).cursor);
    expect(styled, 'site.css styles the buttons').to.equal('pointer');
    await keepScreenshot(page, `authentication-page-${engine}`);
    await Promise.all([page.waitForURL(`${merchant.url}/**`), page.getByRole('button', { name: button }).click()]);
    await page.locator('h1').waitFor();
    expect(await page.locator('h1').textContent()).to.equal('Back at the shop');
    // Going back to the merchant's origin is the point; anything else noted is a fault of the page.
    expect(problems.filter((problem) => !problem.startsWith(`loaded from elsewhere: ${merchant.url}/`))).to.deep.equal([]);
    return new URL(page.url());
  }

  /** The page's answer to a link whose object waits no more: its status and what it tells the customer. */
  async function noticeAt(pageUrl: string): Promise<{ status: number | undefined; lede: string | null }> {
    const page = await browser.newPage();
    try {
      const res = await page.goto(pageUrl);
      expect(await page.locator('button').count()).to.equal(0);
      return { status: res?.status(), lede: await page.locator('p.lede').textContent() };
    } finally {
      await page.close();
    }
  }

  it('Complete: the customer lands back on the return page, and the intent succeeded', async () => {
    const { intent, pageUrl } = await anIntentToAuthenticate();
    const page = await browser.newPage();
    try {
      const back = await answer(page, pageUrl, 'Complete');
      expect(back.pathname).to.equal('/done');
      expect(Object.fromEntries(back.searchParams)).to.deep.equal({
        order: '6735',
        payment_intent: intent.id,
        payment_intent_client_secret: intent.client_secret,
        redirect_status: 'succeeded',
      });
    } finally {
      await page.close();
    }
    expect((await server.api.get(`/v1/payment_intents/${intent.id}`)).body.status).to.equal('succeeded');
    expect(await noticeAt(pageUrl)).to.deep.equal({ status: 409, lede: 'This payment is not waiting for an authentication any more.' });
  });

  it('Fail: the customer lands back told redirect_status=failed, and the intent needs a payment method again', async () => {
    const { intent, pageUrl } = await anIntentToAuthenticate();
    const page = await browser.newPage();
    try {
      const back = await answer(page, pageUrl, 'Fail');
      expect(back.searchParams.get('redirect_status')).to.equal('failed');
    } finally {
      await page.close();
    }
    expect((await server.api.get(`/v1/payment_intents/${intent.id}`)).body.status).to.equal('requires_payment_method');
  });

  it('a setup intent: the customer authenticates the card with nothing to pay, and lands back with the setup intent', async () => {
    const customer = (await server.api.post('/v1/customers', { email: 'jenny@example.com' })).body;
    const created = await server.api.post('/v1/setup_intents', {
      customer: customer.id,
      payment_method: 'pm_card_authenticationRequiredSetupForOffSession',
      confirm: true,
      return_url: `${merchant.url}/cards?step=2`,
    });
    const setupIntent = created.body;
    expect(setupIntent.status).to.equal('requires_action');
    const page = await browser.newPage();
    try {
      const problems = await collectPageProblems(page, server.url);
      await page.goto(setupIntent.next_action.redirect_to_url.url);
      expect(await page.locator('h1').textContent()).to.equal('Authenticate this card');
      expect(await page.locator('[data-field="amount"]').textContent()).to.equal('nothing now (saved for later)');
      await Promise.all([page.waitForURL(`${merchant.url}/**`), page.getByRole('button', { name: 'Complete' }).click()]);
      await page.locator('h1').waitFor();
      expect(await page.locator('h1').textContent()).to.equal('Back at the shop');
      expect(problems.filter((problem) => !problem.startsWith(`loaded from elsewhere: ${merchant.url}/`))).to.deep.equal([]);
      const back = new URL(page.url());
      expect(back.pathname).to.equal('/cards');
      expect(Object.fromEntries(back.searchParams)).to.deep.equal({
        step: '2',
        setup_intent: setupIntent.id,
        setup_intent_client_secret: setupIntent.client_secret,
        redirect_status: 'succeeded',
      });
    } finally {
      await page.close();
    }
    const done = (await server.api.get(`/v1/setup_intents/${setupIntent.id}`)).body;
    expect(done).to.include({ status: 'succeeded', payment_method: setupIntent.payment_method });
    // The link opened again: the card setup, not a payment, is done waiting.
    expect(await noticeAt(setupIntent.next_action.redirect_to_url.url)).to.deep.equal({
      status: 409,
      lede: 'This card setup is not waiting for an authentication any more.',
    });
    const paid = await server.api.post('/v1/payment_intents', {
      amount: 2000,
      currency: 'usd',
      customer: customer.id,
      payment_method: setupIntent.payment_method,
      off_session: true,
      confirm: true,
    });
    expect(paid.body.status, 'set up for off-session payments').to.equal('succeeded');
  });

  it("the merchant's page, on its own origin, reads and confirms an intent with the publishable key (CORS), and nothing else", async () => {
    const keys = (await server.api.get('/v1/api_keys?limit=100')).body.data;
    const publishableKey = keys.find((key: any) => key.type === 'publishable').key;
    const created = (await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd' })).body;
    const page = await browser.newPage();
    try {
      await page.goto(`${merchant.url}/checkout`);
      const seen = await page.evaluate(
        async ({ api, key, id, secret }) => {
          const auth = { Authorization: `Bearer ${key}` };
          const read = await fetch(`${api}/v1/payment_intents/${id}?client_secret=${secret}`, { headers: auth });
          const confirm = await fetch(`${api}/v1/payment_intents/${id}/confirm`, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({ client_secret: secret, payment_method: 'pm_card_visa' }),
          });
          const charges = await fetch(`${api}/v1/charges`, { headers: auth }).then(
            (res) => `answered ${res.status}`,
            () => 'refused by the browser',
          );
          // Inline, not a named helper: the test's compiler would name it with a function the page lacks.
          const readBody = (await read.json()) as { status: string };
          const confirmBody = (await confirm.json()) as { status: string };
          return { read: readBody.status, requestId: read.headers.get('request-id'), confirmed: confirmBody.status, charges };
        },
        { api: server.url, key: publishableKey, id: created.id, secret: created.client_secret },
      );
      expect(seen).to.deep.include({ read: 'requires_payment_method', confirmed: 'succeeded', charges: 'refused by the browser' });
      expect(seen.requestId).to.match(/^req_/);
    } finally {
      await page.close();
    }
  });

  it('a link without the client secret opens nothing', async () => {
    const { intent } = await anIntentToAuthenticate();
    const page = await browser.newPage();
    try {
      const res = await page.goto(new URL(`/authenticate/${intent.id}`, server.url).toString());
      expect(res?.status()).to.equal(404);
      expect(await page.locator('h1').textContent()).to.equal('This link is not valid');
      expect(await page.locator('button').count()).to.equal(0);
    } finally {
      await page.close();
    }
  });
});
