import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from '../../src/webhooks/retry-policy.js';
import { browserAvailable, collectPageProblems, keepScreenshot, launchBrowser } from '../helpers/browser.js';
import { aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

// On both engines: customers and the payments listed by customer are read through each engine's SQL.
forEachDatabase('/dashboard customers, and what it says of this server, in a real browser', function (engine) {
  let browser: Browser;
  let context: BrowserContext;

  before(function () {
    if (!browserAvailable()) this.skip();
  });
  after(async () => {
    await browser?.close();
  });
  // The worker runs on the production schedule, so the failed-webhooks view states its figures.
  const server = useTestServer(engine, { webhookWorker: { retryScheduleSeconds: DEFAULT_RETRY_SCHEDULE_SECONDS } }, { per: 'suite' });
  before(async function () {
    this.timeout(60_000);
    browser = await launchBrowser();
  });
  beforeEach(async function () {
    this.currentTest?.timeout(60_000);
    context = await browser.newContext();
  });
  afterEach(async () => {
    await context?.close();
  });

  async function openDashboard(fragment: string): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems = await collectPageProblems(page, server.url);
    await page.goto(`${server.url}/dashboard${fragment}`);
    await page.waitForSelector('#key-input:enabled');
    await page.fill('#key-input', server.api.apiKey!);
    await page.press('#key-input', 'Enter');
    return { page, problems };
  }

  async function aPaymentOf(customer: string, amount: number): Promise<any> {
    const created = await server.api.post('/v1/payment_intents', {
      amount,
      currency: 'usd',
      customer,
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    return created.body;
  }

  const ids = (page: Page, selector: string) => page.locator(selector).evaluateAll((trs) => trs.map((tr) => (tr as any).dataset.id));

  it("lists customers by name and e-mail, finds one by e-mail, and opens a customer's page with their payments", async () => {
    // Markup in a name is shown as text: it must neither render nor run.
    const markup = '<img src="/nowhere.png" onerror="globalThis.injected = true">';
    const jenny = await aCustomer(server.api, { name: 'Jenny Rosen', email: 'jenny.rosen@example.com', phone: '+1 555 010 0100' });
    const ada = await aCustomer(server.api, { name: markup, email: 'ada@example.com' });
    const payments = [await aPaymentOf(jenny.id, 2000), await aPaymentOf(jenny.id, 750)];
    await aPaymentOf(ada.id, 300);

    const { page, problems } = await openDashboard('#customers');
    await page.locator(`tr.customer[data-id="${jenny.id}"]`).waitFor();
    const listed = (await server.api.get('/v1/customers?limit=20')).body.data.map((customer: any) => customer.id);
    expect(await ids(page, 'tr.customer')).to.deep.equal(listed);
    const jennyRow = page.locator(`tr.customer[data-id="${jenny.id}"]`);
    expect(await jennyRow.locator('td.name').innerText()).to.equal('Jenny Rosen');
    expect(await jennyRow.locator('td.email').innerText()).to.equal('jenny.rosen@example.com');
    expect(await page.locator(`tr.customer[data-id="${ada.id}"] td.name`).innerText()).to.equal(markup);
    await keepScreenshot(page, `dashboard-customers-${engine}`);

    // The API's e-mail filter: only Ada.
    await page.fill('input.email-filter', 'ada@example.com');
    await page.press('input.email-filter', 'Enter');
    await page.locator(`tr.customer[data-id="${jenny.id}"]`).waitFor({ state: 'detached' });
    expect(await ids(page, 'tr.customer')).to.deep.equal([ada.id]);
    await page.fill('input.email-filter', '');
    await page.press('input.email-filter', 'Enter');

    await jennyRow.locator('a.open-customer').click();
    await page.waitForURL(`${server.url}/dashboard#customer/${jenny.id}`);
    const detail = page.locator(`.customer-detail[data-id="${jenny.id}"]`);
    await detail.locator('h2').waitFor();
    expect(await detail.locator('h2').innerText()).to.equal('Jenny Rosen');
    expect(await detail.locator('dd[data-field="e-mail"]').innerText()).to.equal('jenny.rosen@example.com');
    expect(await detail.locator('dd[data-field="phone"]').innerText()).to.equal('+1 555 010 0100');
    await detail.locator('tr.payment').first().waitFor();
    expect(await ids(page, '.customer-detail tr.payment')).to.deep.equal(payments.map((payment) => payment.id).reverse());
    expect(await detail.locator(`tr.payment[data-id="${payments[0].id}"] td.amount`).innerText()).to.equal('20.00 USD');
    expect(await detail.locator(`tr.payment[data-id="${payments[0].id}"] td.customer`).innerText()).to.equal(
      'Jenny Rosen <jenny.rosen@example.com>',
    );

    // A payment of hers opens its page, which names her and links back to hers.
    await detail.locator(`tr.payment[data-id="${payments[1].id}"] a.open-payment`).click();
    await page.waitForURL(`${server.url}/dashboard#payment/${payments[1].id}`);
    const customerField = page.locator('.payment-detail dd[data-field="customer"]');
    await customerField.waitFor();
    expect(await customerField.innerText()).to.equal('Jenny Rosen <jenny.rosen@example.com>');
    await customerField.locator('a.customer-link').click();
    await page.waitForURL(`${server.url}/dashboard#customer/${jenny.id}`);
    await detail.locator('h2').waitFor();
    expect(await page.locator('#tabs a[aria-current="page"]').getAttribute('data-view')).to.equal('customers');

    // Her customer.created event, in the events view, links to her page too.
    const created = (await server.api.get('/v1/events?type=customer.created&limit=100')).body.data.find(
      (event: any) => event.data.object.id === jenny.id,
    );
    await page.locator('#tabs a[data-view="events"]').click();
    await page.locator(`tr.event[data-id="${created.id}"] a.customer-link`).click();
    await page.waitForURL(`${server.url}/dashboard#customer/${jenny.id}`);
    await detail.locator('h2').waitFor();
    expect(await page.locator('img').count()).to.equal(0);
    expect(await page.evaluate(() => (globalThis as any).injected)).to.equal(undefined);
    expect(problems).to.deep.equal([]);
  });

  it("shows a customer's saved cards (brand, last4, expiry, the default marked) and their setup intents by status", async () => {
    const jenny = await aCustomer(server.api, { name: 'Jenny Saved', email: 'jenny.saved@example.com' });
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await server.api.post(path, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    };
    const visa = await post('/v1/payment_methods', {
      type: 'card',
      card: { number: '4242424242424242', exp_month: 3, exp_year: 2031, cvc: '314' },
    });
    await post(`/v1/payment_methods/${visa.id}/attach`, { customer: jenny.id });
    const saved = await post('/v1/setup_intents', { customer: jenny.id, payment_method: 'pm_card_mastercard', confirm: true });
    const waiting = await post('/v1/setup_intents', { customer: jenny.id });
    await post(`/v1/customers/${jenny.id}`, { invoice_settings: { default_payment_method: visa.id } });

    const { page, problems } = await openDashboard(`#customer/${jenny.id}`);
    const detail = page.locator(`.customer-detail[data-id="${jenny.id}"]`);
    const visaRow = detail.locator(`tr.payment-method[data-id="${visa.id}"]`);
    await visaRow.waitFor();
    // Newest first, as the API lists them: the setup intent's Mastercard, then the Visa.
    expect(await ids(page, '.customer-detail tr.payment-method')).to.deep.equal([saved.payment_method, visa.id]);
    const cells = async (row: typeof visaRow) =>
      Object.fromEntries(
        await Promise.all(['brand', 'last4', 'expiry', 'default'].map(async (c) => [c, await row.locator(`td.${c}`).innerText()])),
      );
    expect(await cells(visaRow)).to.deep.equal({ brand: 'Visa', last4: '•••• 4242', expiry: '03/2031', default: 'default' });
    const mastercard = detail.locator(`tr.payment-method[data-id="${saved.payment_method}"]`);
    expect((await cells(mastercard)).brand).to.equal('Mastercard');
    expect((await cells(mastercard)).last4).to.equal('•••• 4444');
    expect((await cells(mastercard)).default).to.equal('');

    await detail.locator('tr.setup-intent').first().waitFor();
    expect(await ids(page, '.customer-detail tr.setup-intent')).to.deep.equal([waiting.id, saved.id]);
    const setupRow = (id: string) => detail.locator(`tr.setup-intent[data-id="${id}"]`);
    expect(await setupRow(saved.id).locator('td.status').innerText()).to.equal('succeeded');
    expect(await setupRow(saved.id).locator('td.card').innerText()).to.equal('Mastercard •••• 4444');
    expect(await setupRow(waiting.id).locator('td.status').innerText()).to.equal('requires_payment_method');
    expect(await setupRow(waiting.id).locator('td.card').innerText()).to.equal('—');
    await keepScreenshot(page, `dashboard-customer-saved-cards-${engine}`);

    // A customer with none says so.
    const empty = await aCustomer(server.api, { name: 'No Cards' });
    await page.goto(`${server.url}/dashboard#customer/${empty.id}`);
    const emptyDetail = page.locator(`.customer-detail[data-id="${empty.id}"]`);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.customer-detail p.empty').length === 3);
    expect(await emptyDetail.locator('p.empty').allInnerTexts()).to.deep.equal([
      'No payments yet.',
      'No saved payment methods.',
      'No setup intents.',
    ]);
    // Lists that fit on one page have no Newer and Older to press.
    expect(await emptyDetail.locator('.pager').count()).to.equal(3);
    expect(await emptyDetail.locator('.pager:visible').count()).to.equal(0);
    expect(problems).to.deep.equal([]);
  });

  it('shows the payments list with each customer by name and e-mail, and a deleted one by id', async () => {
    const grace = await aCustomer(server.api, { name: 'Grace Hopper', email: 'grace@example.com' });
    const gone = await aCustomer(server.api, { name: 'Gone', email: 'gone@example.com' });
    const paid = await aPaymentOf(grace.id, 1500);
    const orphaned = await aPaymentOf(gone.id, 900);
    expect((await server.api.delete(`/v1/customers/${gone.id}`)).status).to.equal(200);

    const { page, problems } = await openDashboard('#payments');
    const row = page.locator(`tr.payment[data-id="${paid.id}"]`);
    await row.waitFor();
    expect(await row.locator('td.customer').innerText()).to.equal('Grace Hopper <grace@example.com>');
    expect(await page.locator(`tr.payment[data-id="${orphaned.id}"] td.customer`).innerText()).to.equal(`${gone.id} (deleted)`);
    await row.locator('a.customer-link').click();
    await page.waitForURL(`${server.url}/dashboard#customer/${grace.id}`);
    await page.locator(`.customer-detail[data-id="${grace.id}"] tr.payment[data-id="${paid.id}"]`).waitFor();
    await keepScreenshot(page, `dashboard-customer-${engine}`);
    expect(problems).to.deep.equal([]);
  });

  it("states the retry schedule's own figures in the failed-webhooks view, and where to change it", async () => {
    const { page, problems } = await openDashboard('#failed');
    const note = page.locator('.retry-schedule');
    await note.waitFor();
    const text = await note.innerText();
    expect(text).to.contain('tried again 10 times, after 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 20 h (each ±20%');
    // 5 + 60 + 300 + … + 72,000 s = 257,765 s: 2.98 days.
    expect(await note.locator('.retry-span').innerText()).to.equal('about 3 days');
    expect(text).to.contain('WEBHOOK_RETRY_SCHEDULE');
    expect(await note.locator('.retry-setting').innerText()).to.equal(DEFAULT_RETRY_SCHEDULE_SECONDS.join(','));
    await keepScreenshot(page, `dashboard-failed-webhooks-${engine}`);
    expect(problems).to.deep.equal([]);
  });
});
