import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { verifyWebhook } from '../../sdk/src/node.js';
import { browserAvailable, collectPageProblems, keepScreenshot, launchBrowser } from '../helpers/browser.js';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { useTestServer } from '../helpers/test-server.js';

/** How long the page may take to show an outcome the worker produces (deliveries, retries). */
const OUTCOME_TIMEOUT_MS = 20_000;

/** A browser tab on the dashboard with everything that went wrong on it and every request it made. */
interface DashboardTab {
  page: Page;
  problems: string[];
  requests: { method: string; url: string; authorization?: string }[];
  pageHeaders: Record<string, string>;
}

// On both engines: the views read deliveries, attempts and events that each engine stores its own way.
forEachDatabase('/dashboard in a real browser', function (engine) {
  let browser: Browser;
  let context: BrowserContext;
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  /** What the receiver answers: 500 makes deliveries fail, 200 lets them succeed. */
  let answer = 500;
  let endpoint: { id: string; secret: string; url: string };

  // Hooks run in the order they are declared: a missing browser skips the rest before the server
  // starts, and the browser and the receiver close before the server.
  before(async function () {
    if (!browserAvailable()) this.skip();
    receiver = await startCaptureReceiver(() => ({ status: answer }));
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
  });
  // One scheduled retry, soon: a delivery fails for good a moment after its event.
  const server = useTestServer(
    engine,
    { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: [0.1] } },
    { per: 'suite' },
  );
  before(async function () {
    this.timeout(90_000);
    const created = await server.api.post('/v1/webhook_endpoints', {
      url: receiver.url,
      enabled_events: ['customer.created'],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    endpoint = created.body;
    browser = await launchBrowser();
  });
  // A context per test: its own sessionStorage, so no test starts with another's key.
  beforeEach(async function () {
    this.currentTest?.timeout(60_000);
    answer = 500;
    context = await browser.newContext();
  });
  afterEach(async () => {
    await context?.close();
  });

  async function openDashboard(fragment = ''): Promise<DashboardTab> {
    const page = await context.newPage();
    const requests: DashboardTab['requests'] = [];
    const problems = await collectPageProblems(page, server.url);
    page.on('request', (request) => {
      requests.push({ method: request.method(), url: request.url(), authorization: request.headers().authorization });
    });
    const response = await page.goto(`${server.url}/dashboard${fragment}`);
    // Enabled only once the page's script has taken the form over.
    await page.waitForSelector('#key-input:enabled', { timeout: 20_000 });
    return { page, problems, requests, pageHeaders: response!.headers() };
  }

  async function enterKey(tab: DashboardTab, key = server.api.apiKey!): Promise<void> {
    await tab.page.fill('#key-input', key);
    await tab.page.press('#key-input', 'Enter');
  }

  /** Creates a customer and waits until the delivery of its `customer.created` event has failed for good. */
  async function aFailedDelivery(email: string, name = 'Jenny Rosen'): Promise<any> {
    const customer = await aCustomer(server.api, { email, name });
    let delivery: any;
    await eventually(async () => {
      const events = (await server.api.get('/v1/events?type=customer.created&limit=100')).body.data;
      const event = events.find((candidate: any) => candidate.data.object.id === customer.id);
      expect(event, 'the customer.created event').to.not.equal(undefined);
      delivery = (await server.api.get(`/v1/webhook_deliveries?event=${event.id}`)).body.data[0];
      expect(delivery?.status).to.equal('failed');
    }, OUTCOME_TIMEOUT_MS);
    return delivery;
  }

  function deliveryRow(tab: DashboardTab, id: string): Locator {
    return tab.page.locator(`tr.delivery[data-id="${id}"]`);
  }

  /** Creates a payment intent with manual capture for 2000 and returns it. */
  async function aManualPaymentIntent(): Promise<any> {
    const created = await server.api.post('/v1/payment_intents', {
      amount: 2000,
      currency: 'usd',
      capture_method: 'manual',
      payment_method: 'pm_card_visa',
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    return created.body;
  }

  /** The events about these objects, oldest first, as the account's own list records them. */
  async function eventsAbout(objectIds: string[]): Promise<any[]> {
    const events = (await server.api.get('/v1/events?limit=100')).body.data;
    return events.filter((event: any) => objectIds.includes(event.data.object.id)).reverse();
  }

  /** The timeline rows the payment page shows, as [type, event id]. */
  async function timelineRows(tab: DashboardTab): Promise<string[][]> {
    const rows = tab.page.locator('tr.timeline-event');
    await rows.first().waitFor();
    return rows.evaluateAll((trs) => trs.map((tr) => [(tr as any).dataset.type, (tr as any).dataset.id]));
  }

  it('serves the page and its assets from this server under a strict CSP, and sends nothing before a key is entered', async () => {
    const tab = await openDashboard();
    const csp = tab.pageHeaders['content-security-policy'];
    expect(csp).to.match(/(^|;)script-src 'self'(;|$)/);
    expect(csp).to.contain("script-src-attr 'none'");
    expect(tab.pageHeaders['cache-control']).to.equal('no-cache');
    expect(tab.pageHeaders['x-content-type-options']).to.equal('nosniff');
    expect(await tab.page.locator('script:not([src])').count(), 'inline scripts').to.equal(0);
    expect(await tab.page.locator('#key-form').isVisible()).to.equal(true);
    expect(await tab.page.locator('#tabs').isVisible()).to.equal(false);

    // Every script module (main.js imports the others) and the stylesheet, with long cache lifetimes.
    const assets = tab.requests.filter((request) => request.url.includes('/dashboard/assets/'));
    expect(assets.map((request) => request.url.split('/').pop())).to.include.members([
      'main.js',
      'api.js',
      'failed-view.js',
      'events-view.js',
      'dashboard.css',
    ]);
    for (const { url } of assets) {
      const asset = await fetch(url);
      expect(asset.status, url).to.equal(200);
      expect(asset.headers.get('cache-control'), url).to.equal('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-type'), url).to.match(url.endsWith('.css') ? /^text\/css/ : /javascript/);
    }
    // Without a key the page asks for one and calls no API.
    expect(tab.requests.filter((request) => request.url.includes('/v1/'))).to.deep.equal([]);
    // Its controls are styled by dashboard.css, not left to the browser's defaults.
    const submit = await tab.page.locator('#key-form button[type="submit"]').evaluate((button) => {
      const style = (globalThis as any).getComputedStyle(button);
      return { font: style.fontFamily, radius: style.borderRadius, background: style.backgroundColor };
    });
    expect(submit.font).to.match(/system-ui/);
    expect(submit.radius).to.equal('6px');
    expect(submit.background, 'the accent').to.equal('rgb(9, 105, 218)');
    expect(tab.problems).to.deep.equal([]);
    await keepScreenshot(tab.page, `dashboard-key-${engine}`);
  });

  it("asks again for a refused key, showing the API's error message", async () => {
    const tab = await openDashboard();
    await enterKey(tab, 'sk_test_notarealkey');
    await tab.page.locator('#message').filter({ hasText: 'Invalid API key provided' }).waitFor();
    expect(await tab.page.locator('#message').innerText()).to.contain('The API key was refused').and.to.contain('api_key_invalid');
    expect(await tab.page.locator('#key-form').isVisible()).to.equal(true);
    expect(await tab.page.evaluate(() => Object.keys((globalThis as any).sessionStorage))).to.deep.equal([]);
    // The only problems are the refused requests themselves (the browser logs each 401).
    expect(tab.problems.filter((problem) => !problem.includes('401'))).to.deep.equal([]);
  });

  it('shows a failed delivery, and Retry sends it again until it succeeds with a signed request', async () => {
    const delivery = await aFailedDelivery('retry@example.com');
    const tab = await openDashboard();
    await enterKey(tab);
    const row = deliveryRow(tab, delivery.id);
    await row.waitFor();
    await eventually(async () => {
      expect(await row.locator('td.endpoint').innerText()).to.equal(receiver.url);
      expect(await row.locator('td.event').innerText()).to.equal('customer.created');
    }, 10_000);
    expect(await row.getAttribute('data-status')).to.equal('failed');
    expect(await row.locator('td.attempts').innerText()).to.equal('2');
    // How long a failure takes to show, in this server's schedule's figures (one retry after 0.1 s).
    const schedule = tab.page.locator('.retry-schedule');
    expect(await schedule.innerText()).to.contain('tried again once, after 0.1 s (each ±20%').and.to.contain('WEBHOOK_RETRY_SCHEDULE');
    expect(await schedule.locator('.retry-span').innerText()).to.equal('about 0.1 seconds');
    expect(await row.locator('td.last-response').innerText()).to.equal('500');

    answer = 200;
    const sentBefore = receiver.received.length;
    await row.locator('button.retry').click();
    await tab.page.locator(`tr.delivery[data-id="${delivery.id}"][data-status="succeeded"]`).waitFor({
      timeout: OUTCOME_TIMEOUT_MS,
    });
    expect(await row.locator('td.attempts').innerText()).to.equal('3');
    expect(await row.locator('td.last-response').innerText()).to.equal('200');

    const [resent] = receiver.received.slice(sentBefore);
    const event = verifyWebhook<any>(resent.body, resent.headers['service-signature'] as string, endpoint.secret);
    expect(event.id).to.equal(delivery.event);
    const detail = (await server.api.get(`/v1/webhook_deliveries/${delivery.id}`)).body;
    expect(detail.status).to.equal('succeeded');
    expect(detail.attempts.at(-1)).to.include({ response_status: 200, manual: true });

    // The key went only to this server's API, in the Authorization header, and never into a URL.
    const key = server.api.apiKey!;
    const withKey = tab.requests.filter((request) => request.authorization !== undefined);
    expect(withKey.length).to.be.greaterThan(0);
    for (const request of withKey) {
      expect(request.url.startsWith(`${server.url}/v1/`), request.url).to.equal(true);
      expect(request.authorization).to.equal(`Bearer ${key}`);
    }
    expect(tab.requests.filter((request) => request.url.includes(key))).to.deep.equal([]);
    expect(tab.page.url()).to.not.contain(key);
    expect(tab.problems).to.deep.equal([]);
  });

  it("replays an endpoint's failed deliveries in bulk, after a dry run that counts them and sends nothing", async () => {
    const deliveries = [await aFailedDelivery('bulk-1@example.com'), await aFailedDelivery('bulk-2@example.com')];
    const failed = async () =>
      (await server.api.get(`/v1/webhook_deliveries?status=failed&endpoint=${endpoint.id}&limit=100`)).body.data;
    const expected = (await failed()).length;
    expect(expected).to.be.at.least(2);

    const tab = await openDashboard();
    await enterKey(tab);
    for (const delivery of deliveries) await deliveryRow(tab, delivery.id).waitFor();
    const endpointItem = tab.page.locator(`.endpoint[data-id="${endpoint.id}"]`);
    expect(await endpointItem.locator('.url').innerText()).to.equal(receiver.url);
    const sentBefore = receiver.received.length;
    await endpointItem.locator('button.replay').click();
    const outcome = endpointItem.locator('.replay-outcome');
    await outcome.filter({ hasText: `${expected} failed deliveries would be sent again.` }).waitFor();
    expect((await failed()).length, 'still failed after the dry run').to.equal(expected);
    expect(receiver.received.length, 'nothing sent by the dry run').to.equal(sentBefore);

    answer = 200;
    await endpointItem.locator('button.confirm-replay').click();
    await outcome.filter({ hasText: `${expected} failed deliveries queued to be sent again.` }).waitFor();
    await eventually(async () => {
      for (const delivery of deliveries) {
        expect((await server.api.get(`/v1/webhook_deliveries/${delivery.id}`)).body.status).to.equal('succeeded');
      }
    }, OUTCOME_TIMEOUT_MS);
    // The failed list is read again: the replayed deliveries leave it (waited for, not sampled once:
    // the page's re-read may race the queueing it follows).
    for (const delivery of deliveries) await deliveryRow(tab, delivery.id).waitFor({ state: 'detached', timeout: OUTCOME_TIMEOUT_MS });
    expect(tab.problems).to.deep.equal([]);
  });

  it('lists events newest first with their delivery state, and opens one to show its payload and attempts', async () => {
    // Markup in the data is shown as text: it must neither render nor run.
    const markup = '<img src="/nowhere.png" onerror="globalThis.injected = true">';
    const delivery = await aFailedDelivery('events@example.com', markup);
    // No endpoint is subscribed to charges: their events have no webhooks. Enough of them to fill a page.
    for (let i = 0; i < 5; i++) await aCharge(server.api);
    const tab = await openDashboard('#events');
    await enterKey(tab);
    const rows = tab.page.locator('tr.event');
    await rows.first().waitFor();
    const newest = (await server.api.get('/v1/events?limit=20')).body.data;
    expect(await rows.evaluateAll((trs) => trs.map((tr) => (tr as any).dataset.id))).to.deep.equal(
      newest.map((event: any) => event.id),
    );
    expect(await rows.first().locator('td.type').innerText()).to.match(/^(charge|payment_intent)\./);
    await eventually(async () => expect(await rows.first().locator('td.webhooks').innerText()).to.equal('none'), 10_000);
    const failedEventRow = tab.page.locator(`tr.event[data-id="${delivery.event}"]`);
    await eventually(
      async () => expect(await failedEventRow.locator('td.webhooks').innerText()).to.equal('1 failed'),
      10_000,
    );

    // A window shorter than the list: the detail opens below the fold, and is brought into view.
    await tab.page.setViewportSize({ width: 1280, height: 400 });
    await tab.page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    const belowFold = await tab.page
      .locator('.detail')
      .evaluate((holder) => holder.getBoundingClientRect().top > (globalThis as any).innerHeight);
    expect(belowFold, 'the detail starts below the window').to.equal(true);
    await failedEventRow.locator('button.open-event').click();
    const detail = tab.page.locator(`.event-detail[data-id="${delivery.event}"]`);
    await detail.waitFor();
    await eventually(async () => {
      const top = await detail.evaluate((section) => section.getBoundingClientRect().top);
      expect(top).to.be.within(-1, 100);
    }, 10_000);
    expect(await detail.locator('h3').first().evaluate((heading) => heading === (globalThis as any).document.activeElement)).to.equal(true);
    const payload = JSON.parse(await detail.locator('pre.payload').innerText());
    expect(payload).to.deep.equal((await server.api.get(`/v1/events/${delivery.event}`)).body);
    expect(payload.data.object).to.include({ email: 'events@example.com', name: markup });
    expect(await detail.locator('img').count()).to.equal(0);
    const attempts = detail.locator(`.delivery-detail[data-id="${delivery.id}"] tr.attempt`);
    await attempts.first().waitFor();
    expect(
      await attempts.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => (td as any).innerText))),
    ).to.satisfy((cells: string[][]) => cells.length === 2 && cells.every((c) => c[2] === '500' && c[3] === 'ok'));
    await keepScreenshot(tab.page, `dashboard-event-${engine}`);

    // The failed-webhooks view of events: only events with a delivery that failed for good.
    await tab.page.selectOption('select.delivery-filter', 'false');
    await eventually(async () => {
      const shown = await rows.evaluateAll((trs) => trs.map((tr) => (tr as any).dataset.id));
      const expected = (await server.api.get('/v1/events?delivery_success=false&limit=20')).body.data;
      expect(shown).to.deep.equal(expected.map((event: any) => event.id));
      expect(shown).to.include(delivery.event);
    }, 10_000);
    expect(await tab.page.evaluate(() => (globalThis as any).injected)).to.equal(undefined);
    expect(tab.problems).to.deep.equal([]);
  });

  it("shows a payment's page, from the list, a link and its events: its charge and its timeline in the order recorded", async () => {
    const intent = await aManualPaymentIntent();
    // Another payment's events fall between this one's, within the same seconds: none may show.
    const other = await server.api.post('/v1/payment_intents', {
      amount: 700,
      currency: 'usd',
      payment_method: 'pm_card_mastercard',
      confirm: true,
    });
    expect(other.body.status, JSON.stringify(other.body)).to.equal('succeeded');
    const confirmed = await server.api.post(`/v1/payment_intents/${intent.id}/confirm`, {});
    expect(confirmed.body.status, JSON.stringify(confirmed.body)).to.equal('requires_capture');
    const captured = await server.api.post(`/v1/payment_intents/${intent.id}/capture`, { amount_to_capture: 1500 });
    expect(captured.body, JSON.stringify(captured.body)).to.include({ status: 'succeeded', amount_received: 1500 });
    const charge = (await server.api.get(`/v1/charges/${captured.body.latest_charge}`)).body;
    const refund = (await server.api.get(`/v1/refunds?payment_intent=${intent.id}`)).body.data[0];
    const expected = (await eventsAbout([intent.id, charge.id, refund.id])).map((event) => [event.type, event.id]);
    expect(expected.map(([type]) => type)).to.deep.equal([
      'payment_intent.created',
      'charge.succeeded',
      'payment_intent.amount_capturable_updated',
      'charge.captured',
      'refund.created',
      'payment_intent.succeeded',
    ]);

    const tab = await openDashboard('#payments');
    await enterKey(tab);
    const row = tab.page.locator(`tr.payment[data-id="${intent.id}"]`);
    await row.waitFor();
    const listed = (await server.api.get('/v1/payment_intents?limit=20')).body.data.map((pi: any) => pi.id);
    expect(await tab.page.locator('tr.payment').evaluateAll((trs) => trs.map((tr) => (tr as any).dataset.id))).to.deep.equal(listed);
    expect(await row.locator('td.status').innerText()).to.equal('succeeded');
    expect(await row.locator('td.amount').innerText()).to.equal('20.00 USD');
    await keepScreenshot(tab.page, `dashboard-payments-${engine}`);

    await row.locator('a.open-payment').click();
    await tab.page.waitForURL(`${server.url}/dashboard#payment/${intent.id}`);
    expect(await timelineRows(tab)).to.deep.equal(expected);
    const page = tab.page.locator(`.payment-detail[data-id="${intent.id}"]`);
    expect(await page.locator('dd[data-field="status"]').innerText()).to.equal('succeeded');
    expect(await page.locator('dd[data-field="capture method"]').innerText()).to.equal('manual');
    expect(await page.locator('dd[data-field="received"]').innerText()).to.equal('15.00 USD');
    const chargeRow = page.locator('tr.charge');
    expect(await chargeRow.evaluateAll((trs) => trs.map((tr) => (tr as any).dataset.id))).to.deep.equal([charge.id]);
    expect(await chargeRow.locator('td.captured').innerText()).to.equal('15.00 USD');
    expect(await chargeRow.locator('td.refunded').innerText()).to.equal('5.00 USD');
    const released = page.locator(`tr.timeline-event[data-type="refund.created"]`);
    expect(await released.locator('td.state').innerText()).to.equal('5.00 USD refunded');
    await keepScreenshot(tab.page, `dashboard-payment-${engine}`);

    // The page's address is a link: opened afresh (the key is still in this tab), it shows the same.
    await tab.page.reload();
    expect(await timelineRows(tab)).to.deep.equal(expected);

    // An event about the intent, in the events view, links to the same page. The tabs stand still
    // as the current one changes.
    const tabBoxes = () =>
      tab.page.locator('#tabs a').evaluateAll((links) => links.map((link) => Math.round(link.getBoundingClientRect().x)));
    const tabsOnPayments = await tabBoxes();
    await tab.page.locator('#tabs a[data-view="events"]').click();
    await tab.page.locator('#tabs a[data-view="events"][aria-current="page"]').waitFor();
    expect(await tabBoxes()).to.deep.equal(tabsOnPayments);
    const [, succeededId] = expected.at(-1)!;
    await tab.page.locator(`tr.event[data-id="${succeededId}"] a.payment-link`).click();
    await tab.page.waitForURL(`${server.url}/dashboard#payment/${intent.id}`);
    expect(await timelineRows(tab)).to.deep.equal(expected);
    expect(tab.problems).to.deep.equal([]);
  });

  it('pages through deliveries filtered by status with Older and Newer', async () => {
    answer = 200;
    for (let i = 0; i < 21; i++) await aCustomer(server.api, { email: `page-${i}@example.com` });
    const succeededPage = async (query = '') =>
      (await server.api.get(`/v1/webhook_deliveries?status=succeeded&limit=20${query}`)).body;
    await eventually(async () => {
      expect((await server.api.get('/v1/webhook_deliveries?status=pending')).body.data).to.deep.equal([]);
      expect((await succeededPage()).has_more).to.equal(true);
    }, OUTCOME_TIMEOUT_MS);
    const first = await succeededPage();
    const second = await succeededPage(`&starting_after=${first.data.at(-1).id}`);
    const ids = (page: any) => page.data.map((delivery: any) => delivery.id);

    const tab = await openDashboard('#deliveries');
    await enterKey(tab);
    await tab.page.locator('tr.delivery').first().waitFor();
    const shownIds = () => tab.page.locator('tr.delivery').evaluateAll((trs) => trs.map((tr) => (tr as any).dataset.id));
    await tab.page.selectOption('select.status-filter', 'succeeded');
    await eventually(async () => expect(await shownIds()).to.deep.equal(ids(first)), 10_000);
    expect(await tab.page.locator('button.newer').isDisabled()).to.equal(true);
    // More than a page: the pager is shown (it is hidden when the list fits on one).
    expect(await tab.page.locator('.pager').isVisible()).to.equal(true);
    await keepScreenshot(tab.page, `dashboard-deliveries-${engine}`);

    await tab.page.locator('button.older').click();
    await eventually(async () => expect(await shownIds()).to.deep.equal(ids(second)), 10_000);
    expect(await tab.page.locator('button.older').isDisabled()).to.equal(!second.has_more);
    await tab.page.locator('button.newer').click();
    await eventually(async () => expect(await shownIds()).to.deep.equal(ids(first)), 10_000);
    expect(await tab.page.locator('button.newer').isDisabled()).to.equal(true);
    expect(tab.problems).to.deep.equal([]);
  });
});
