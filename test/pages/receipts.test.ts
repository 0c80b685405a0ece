import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, collectPageProblems, keepScreenshot, launchBrowser } from '../helpers/browser.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

const DAY_MS = 24 * 3600 * 1000;

/** The facts a receipt page shows, by name. */
async function factsOf(page: Page): Promise<Record<string, string>> {
  return page.locator('dd[data-fact]').evaluateAll((items) =>
    Object.fromEntries(items.map((item) => [(item as any).dataset.fact, (item as any).textContent.trim()])),
  );
}

forEachDatabase('a charge receipt in a real browser', function (engine) {
  let browser: Browser;
  before(function () {
    if (!browserAvailable()) this.skip();
  });
  after(async () => {
    await browser?.close();
  });
  const server = useTestServer(engine, {}, { per: 'suite' });
  before(async function () {
    this.timeout(60_000);
    browser = await launchBrowser();
  });
  beforeEach(function () {
    this.currentTest?.timeout(60_000);
  });

  it('opens without an API key and shows the merchant, amount, card, date, status and refunds, styled, with nothing blocked', async () => {
    const charge = (await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa' })).body;
    server.clock.advance(DAY_MS);
    await server.api.post('/v1/refunds', { charge: charge.id, amount: 500 });
    const page = await browser.newPage();
    const problems = await collectPageProblems(page, server.url);
    const response = await page.goto(charge.receipt_url);
    expect(response?.status()).to.equal(200);
    const headers = response!.headers();
    expect(headers['x-robots-tag']).to.equal('noindex, nofollow');
    expect(headers['cache-control']).to.equal('no-store');
    expect(headers['referrer-policy']).to.equal('no-referrer');
    expect(headers['content-security-policy']).to.contain("script-src 'self'");
    expect(await page.title()).to.equal('Receipt from Test');
    expect(await page.locator('h1').textContent()).to.equal('Receipt from Test');
    expect(await page.locator('header.site-header .site-name').textContent()).to.equal('Test');
    expect(await factsOf(page)).to.deep.equal({
      amount: '$20.00 USD',
      date: 'November 22, 2026',
      card: 'Visa •••• 4242',
      status: 'Partially refunded',
    });
    expect(await page.locator('[data-fact="refunded"]').textContent()).to.equal('$5.00');
    const refunds = await page.locator('.receipt-refunds tbody tr').evaluateAll((rows) =>
      rows.map((row) => Array.from((row as any).cells as any[], (cell) => cell.textContent.trim())),
    );
    expect(refunds).to.deep.equal([['November 23, 2026', '$5.00']]);
    expect(await page.locator('script').count(), 'no script at all').to.equal(0);
    // Styled by the site's stylesheet: the header a flex row, the page in the system font.
    const style = await page.locator('header.site-header').evaluate((header) => {
      const computed = (globalThis as any).getComputedStyle(header);
      return { display: computed.display, font: computed.fontFamily };
    });
    expect(style.display).to.equal('flex');
    expect(style.font).to.contain('system-ui');
    await keepScreenshot(page, `receipt-${engine}`);
    expect(problems).to.deep.equal([]);
    await page.close();
  });

  it('answers the same 404 page for a wrong token, an unknown charge, a failed charge and a malformed address, revealing nothing', async () => {
    const charge = (await server.api.post('/v1/charges', { amount: 4321, currency: 'usd', source: 'tok_visa' })).body;
    const declined = await server.api.post('/v1/charges', { amount: 4321, currency: 'usd', source: 'tok_chargeDeclined' });
    const token = charge.receipt_url.split('/').pop() as string;
    const wrongToken = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const addresses = [
      `/receipts/${charge.id}/${wrongToken}`,
      `/receipts/${charge.id}/${token.slice(0, -1)}`,
      `/receipts/ch_doesNotExist0000000000000/${token}`,
      `/receipts/${declined.body.error.charge}/${token}`,
      `/receipts/${charge.id}`,
      '/receipts/',
      `/receipts/${charge.id}/${token}/more`,
    ];
    const bodies = new Set<string>();
    for (const address of addresses) {
      const response = await fetch(`${server.url}${address}`);
      expect(response.status, address).to.equal(404);
      expect(response.headers.get('x-robots-tag'), address).to.equal('noindex, nofollow');
      const body = await response.text();
      expect(body, address).not.to.contain('43.21');
      expect(body, address).not.to.contain('Test');
      bodies.add(body);
    }
    expect(bodies.size, 'one page for every wrong address').to.equal(1);
    // In the browser too: the page, not an error of the server.
    const page = await browser.newPage();
    const response = await page.goto(`${server.url}${addresses[0]}`);
    expect(response?.status()).to.equal(404);
    expect(await page.locator('h1').textContent()).to.equal('Receipt not found');
    await page.close();
  });

  it('the home page says where receipts are served', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    const card = page.locator('.cards a', { hasText: 'Receipts' });
    expect(await card.getAttribute('href')).to.equal('/guides/docs/integrating.md#receipts');
    expect(await card.textContent()).to.contain('/receipts/');
    await page.close();
  });
});
