import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { browserAvailable, collectPageProblems, keepScreenshot, launchBrowser } from '../helpers/browser.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/** A payment's page in a browser tab, with what went wrong on it and every action it sent. */
interface PaymentTab {
  page: Page;
  detail: Locator;
  problems: string[];
  /** The POSTs the page sent, with their Idempotency-Key. */
  posts: { url: string; idempotencyKey?: string; body: any }[];
  /** Whether each answer to a POST was a replay (`Idempotent-Replayed`), in the order they came. */
  replayed: boolean[];
}

// On both engines: the actions lock, update and record events through each engine's own SQL.
forEachDatabase('/dashboard acting on a payment in a real browser', function (engine) {
  let browser: Browser;
  let context: BrowserContext;

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
  beforeEach(async function () {
    this.currentTest?.timeout(60_000);
    context = await browser.newContext();
  });
  afterEach(async () => {
    await context?.close();
  });

  /** A confirmed payment intent: `manual` leaves it authorised (`requires_capture`), `automatic` captured. */
  async function aPayment(captureMethod: 'manual' | 'automatic', amount = 2000): Promise<any> {
    const created = await server.api.post('/v1/payment_intents', {
      amount,
      currency: 'usd',
      capture_method: captureMethod,
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    expect(created.body.status, JSON.stringify(created.body)).to.equal(captureMethod === 'manual' ? 'requires_capture' : 'succeeded');
    return created.body;
  }

  async function openPayment(id: string): Promise<PaymentTab> {
    const page = await context.newPage();
    const problems = await collectPageProblems(page, server.url);
    const posts: PaymentTab['posts'] = [];
    const replayed: boolean[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'POST') return;
      posts.push({ url: request.url(), idempotencyKey: request.headers()['idempotency-key'], body: request.postDataJSON() });
    });
    page.on('response', (response) => {
      if (response.request().method() === 'POST') replayed.push(response.headers()['idempotent-replayed'] === 'true');
    });
    await page.goto(`${server.url}/dashboard#payment/${id}`);
    await page.waitForSelector('#key-input:enabled');
    await page.fill('#key-input', server.api.apiKey!);
    await page.press('#key-input', 'Enter');
    const detail = page.locator(`.payment-detail[data-id="${id}"]`);
    await detail.locator('h2').waitFor();
    return { page, detail, problems, posts, replayed };
  }

  /** The text of the confirmation of an action (`capture`, `refund`, `cancel`), once it is shown. */
  async function confirmationOf(tab: PaymentTab, action: string): Promise<{ box: Locator; text: string }> {
    const box = tab.detail.locator(`.action-${action} .confirmation`);
    await box.waitFor();
    return { box, text: await box.locator('.what-happens').innerText() };
  }

  /** Waits for the page to show the outcome of an action, read afresh with the state it left. */
  async function outcome(tab: PaymentTab, said: string): Promise<void> {
    await tab.detail.locator('.action-outcome').filter({ hasText: said }).waitFor();
  }

  function field(tab: PaymentTab, name: string): Promise<string> {
    return tab.detail.locator(`dd[data-field="${name}"]`).innerText();
  }

  /** The timeline the page shows, as [type, event id]. */
  function timeline(tab: PaymentTab): Promise<string[][]> {
    return tab.detail.locator('tr.timeline-event').evaluateAll((trs) => trs.map((tr) => [(tr as any).dataset.type, (tr as any).dataset.id]));
  }

  /** The events about a payment (its intent, charges and refunds), oldest first, as the API records them. */
  async function eventsOfPayment(intentId: string): Promise<string[][]> {
    const charges = (await server.api.get(`/v1/charges?payment_intent=${intentId}`)).body.data.map((c: any) => c.id);
    const refunds = (await server.api.get(`/v1/refunds?payment_intent=${intentId}`)).body.data.map((r: any) => r.id);
    const ids = [intentId, ...charges, ...refunds];
    const events = (await server.api.get('/v1/events?limit=100')).body.data;
    return events
      .filter((event: any) => ids.includes(event.data.object.id))
      .reverse()
      .map((event: any) => [event.type, event.id]);
  }

  it("reads typed amounts in the currency's units, exactly, and refuses what the currency cannot hold", async () => {
    const intent = await aPayment('manual');
    const tab = await openPayment(intent.id);
    // The page's own module, as its scripts import it (same origin, so the CSP allows it).
    const results = await tab.page.evaluate(async () => {
      const main = (globalThis as any).document.querySelector('script[src$="/main.js"]').src as string;
      const money = await import(main.replace(/main\.js$/, 'money.js'));
      const cases: [string, string][] = [
        ['15', 'usd'], ['15.5', 'usd'], ['0.29', 'usd'], [' 20.00 ', 'usd'], ['1.234', 'usd'], ['-5', 'usd'], ['1e3', 'usd'],
        ['15,00', 'usd'], ['', 'usd'], ['500', 'jpy'], ['5.5', 'jpy'], ['1.234', 'kwd'],
      ];
      return {
        parsed: cases.map(([text, currency]) => money.parseAmount(text, currency) ?? null),
        formatted: [money.formatAmount(29, 'usd'), money.formatAmount(500, 'jpy'), money.formatAmount(1234, 'kwd')],
      };
    });
    expect(results.parsed).to.deep.equal([1500, 1550, 29, 2000, null, null, null, null, null, 500, null, 1234]);
    expect(results.formatted).to.deep.equal(['0.29 USD', '500 JPY', '1.234 KWD']);
    expect(tab.problems).to.deep.equal([]);
  });

  it('captures part of an authorisation once, however often Confirm is pressed and even when its answer is lost', async () => {
    const intent = await aPayment('manual');
    const tab = await openPayment(intent.id);
    const capture = tab.detail.locator('.action-capture');
    expect(await capture.locator('input.amount').inputValue(), 'prefilled with all that is capturable').to.equal('20.00');
    await capture.locator('input.amount').fill('15.00');
    await capture.locator('button.start-capture').click();
    const { box, text } = await confirmationOf(tab, 'capture');
    expect(text).to.equal(
      'Capture 15.00 USD of the 20.00 USD authorised. The other 5.00 USD are released to the customer. ' +
        'The payment becomes succeeded; what is captured can then be refunded, not captured again.',
    );
    expect(tab.posts, 'nothing sent before Confirm').to.deep.equal([]);
    await keepScreenshot(tab.page, `dashboard-capture-confirmation-${engine}`);

    // The first answer is lost on its way back: the server captures, the page sees the connection drop.
    let answersLost = 0;
    await tab.page.route(`${server.url}/v1/payment_intents/${intent.id}/capture`, async (route) => {
      if (answersLost > 0) return route.continue();
      answersLost++;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await box.locator('button.confirm').dblclick();
    await box.locator('.action-error').filter({ hasText: 'The server could not be reached' }).waitFor();
    expect(await box.locator('button.confirm').innerText()).to.equal('Try again');
    await box.locator('button.confirm').click();
    await outcome(tab, 'Captured 15.00 USD.');

    // One capture, made by the first request; the second, under the same key, was answered from the stored response.
    const captures = tab.posts.filter((post) => post.url.endsWith('/capture'));
    expect(captures.map((post) => post.body)).to.deep.equal([{ amount_to_capture: 1500 }, { amount_to_capture: 1500 }]);
    expect(captures[0].idempotencyKey).to.match(/^dashboard-[0-9a-f]{32}$/);
    expect(captures[1].idempotencyKey).to.equal(captures[0].idempotencyKey);
    expect(tab.replayed.at(-1), 'the retry was a replay').to.equal(true);
    const after = (await server.api.get(`/v1/payment_intents/${intent.id}`)).body;
    expect(after).to.include({ status: 'succeeded', amount_received: 1500, amount_capturable: 0 });
    const events = await eventsOfPayment(intent.id);
    expect(events.filter(([type]) => type === 'charge.captured')).to.have.length(1);

    // The page shows the new state and the whole timeline, capture included.
    expect(await field(tab, 'status')).to.equal('succeeded');
    expect(await field(tab, 'received')).to.equal('15.00 USD');
    expect(await field(tab, 'capturable')).to.equal('0.00 USD');
    expect(await tab.detail.locator('tr.charge td.captured').innerText()).to.equal('15.00 USD');
    expect(await timeline(tab)).to.deep.equal(events);
    expect(await tab.detail.locator('.action-capture').count(), 'nothing left to capture').to.equal(0);
    await keepScreenshot(tab.page, `dashboard-captured-${engine}`);
    // The only problems are the answer the test dropped.
    expect(tab.problems.filter((problem) => !/capture|ERR_CONNECTION_RESET/.test(problem))).to.deep.equal([]);
  });

  it('captures all of an authorisation by default', async () => {
    const intent = await aPayment('manual', 1234);
    const tab = await openPayment(intent.id);
    await tab.detail.locator('.action-capture button.start-capture').click();
    const { box, text } = await confirmationOf(tab, 'capture');
    expect(text).to.equal(
      'Capture 12.34 USD of the 12.34 USD authorised. The payment becomes succeeded; what is captured can then be refunded, not captured again.',
    );
    await box.locator('button.confirm').click();
    await outcome(tab, 'Captured 12.34 USD.');
    expect(tab.posts.map((post) => post.body)).to.deep.equal([{ amount_to_capture: 1234 }]);
    expect((await server.api.get(`/v1/payment_intents/${intent.id}`)).body).to.include({ status: 'succeeded', amount_received: 1234 });
    expect(await field(tab, 'received')).to.equal('12.34 USD');
    expect((await timeline(tab)).map(([type]) => type)).to.include.members(['charge.captured', 'payment_intent.succeeded']);
    // Captured, the payment can be refunded.
    expect(await tab.detail.locator('.action-refund input.amount').inputValue()).to.equal('12.34');
    expect(tab.problems).to.deep.equal([]);
  });

  it("shows the API's refusal of capturing more than is capturable, and captures nothing", async () => {
    const intent = await aPayment('manual');
    const tab = await openPayment(intent.id);
    const capture = tab.detail.locator('.action-capture');
    await capture.locator('input.amount').fill('25.00');
    await capture.locator('button.start-capture').click();
    const { box, text } = await confirmationOf(tab, 'capture');
    expect(text).to.match(/^Capture 25\.00 USD of the 20\.00 USD authorised\./);
    await box.locator('button.confirm').click();
    const error = box.locator('.action-error');
    await error.waitFor();

    // The API's own words for the same request.
    const refused = await server.api.post(`/v1/payment_intents/${intent.id}/capture`, { amount_to_capture: 2500 });
    expect(refused.status).to.equal(400);
    const shown = await error.innerText();
    expect(shown).to.contain(refused.body.error.message).and.to.contain(refused.body.error.code);
    await keepScreenshot(tab.page, `dashboard-capture-refused-${engine}`);
    expect(refused.body.error.message).to.contain('greater than the amount capturable');
    expect((await server.api.get(`/v1/payment_intents/${intent.id}`)).body).to.include({
      status: 'requires_capture',
      amount_capturable: 2000,
      amount_received: 0,
    });
    expect(await field(tab, 'status')).to.equal('requires_capture');
    expect(await tab.detail.locator('.action-outcome').count()).to.equal(0);
    // Editing the amount withdraws the confirmation: a new one would carry a new key.
    await capture.locator('input.amount').fill('20.00');
    expect(await box.count()).to.equal(0);
    expect(tab.problems.filter((problem) => !problem.includes('400'))).to.deep.equal([]);
  });

  it('refunds part of a payment, then the rest, each confirmed with what is left', async () => {
    const intent = await aPayment('automatic');
    const tab = await openPayment(intent.id);
    const charge = (await server.api.get(`/v1/charges/${intent.latest_charge}`)).body;
    const { brand, last4 } = charge.payment_method_details.card;
    const refund = tab.detail.locator('.action-refund');
    expect(await refund.locator('input.amount').inputValue()).to.equal('20.00');
    await refund.locator('input.amount').fill('5');
    await refund.locator('button.start-refund').click();
    let confirmation = await confirmationOf(tab, 'refund');
    expect(confirmation.text).to.equal(
      `Refund 5.00 USD of the 20.00 USD not yet refunded to the ${brand} card ending ${last4}. 15.00 USD will be left to refund.`,
    );
    await confirmation.box.locator('button.confirm').click();
    await outcome(tab, 'Refunded 5.00 USD.');
    expect(await tab.detail.locator('tr.charge td.refunded').innerText()).to.equal('5.00 USD');
    expect(await timeline(tab)).to.deep.equal(await eventsOfPayment(intent.id));

    // The page was read again: what is left is offered now.
    expect(await refund.locator('input.amount').inputValue()).to.equal('15.00');
    await refund.locator('button.start-refund').click();
    confirmation = await confirmationOf(tab, 'refund');
    expect(confirmation.text).to.equal(
      `Refund 15.00 USD of the 15.00 USD not yet refunded to the ${brand} card ending ${last4}. Nothing will be left to refund.`,
    );
    await confirmation.box.locator('button.confirm').click();
    await outcome(tab, 'Refunded 15.00 USD.');

    const refunds = (await server.api.get(`/v1/refunds?payment_intent=${intent.id}`)).body.data;
    expect(refunds.map((r: any) => r.amount)).to.deep.equal([1500, 500]);
    expect(tab.posts.map((post) => post.body)).to.deep.equal([
      { payment_intent: intent.id, amount: 500 },
      { payment_intent: intent.id, amount: 1500 },
    ]);
    // Two confirmations, two keys.
    for (const post of tab.posts) expect(post.idempotencyKey).to.match(/^dashboard-[0-9a-f]{32}$/);
    expect(new Set(tab.posts.map((post) => post.idempotencyKey)).size).to.equal(2);
    expect(await tab.detail.locator('tr.charge td.refunded').innerText()).to.equal('20.00 USD');
    const events = await eventsOfPayment(intent.id);
    expect(events.filter(([type]) => type === 'refund.created')).to.have.length(2);
    expect(await timeline(tab)).to.deep.equal(events);
    expect(await tab.detail.locator('.actions').count(), 'nothing left to do').to.equal(0);
    await keepScreenshot(tab.page, `dashboard-refunded-${engine}`);
    expect(tab.problems).to.deep.equal([]);
  });

  it('cancels an authorised payment with a reason, releasing the authorisation', async () => {
    const intent = await aPayment('manual', 4200);
    const tab = await openPayment(intent.id);
    const cancel = tab.detail.locator('.action-cancel');
    await cancel.locator('select.cancellation-reason').selectOption('requested_by_customer');
    await cancel.locator('button.start-cancel').click();
    const { box, text } = await confirmationOf(tab, 'cancel');
    expect(text).to.equal('Cancel this payment, releasing the 42.00 USD authorised to the customer. It can then be neither confirmed nor captured.');
    await box.locator('button.confirm').click();
    await outcome(tab, 'Canceled the payment.');

    expect(tab.posts.map((post) => post.body)).to.deep.equal([{ cancellation_reason: 'requested_by_customer' }]);
    expect(tab.posts[0].idempotencyKey).to.match(/^dashboard-[0-9a-f]{32}$/);
    expect((await server.api.get(`/v1/payment_intents/${intent.id}`)).body).to.include({
      status: 'canceled',
      cancellation_reason: 'requested_by_customer',
      amount_capturable: 0,
    });
    expect(await field(tab, 'status')).to.equal('canceled');
    expect(await field(tab, 'canceled')).to.contain('requested_by_customer');
    const events = await eventsOfPayment(intent.id);
    expect(events.at(-1)![0]).to.equal('payment_intent.canceled');
    expect(await timeline(tab)).to.deep.equal(events);
    expect(await tab.detail.locator('.actions').count(), 'nothing left to do').to.equal(0);
    expect(tab.problems).to.deep.equal([]);
  });
});
