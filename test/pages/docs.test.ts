import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { routeOperations } from '../../src/operations/routes.js';
import { loadSpec } from '../../src/operations/spec.js';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { useTestServer } from '../helpers/test-server.js';

describe('/docs in a real browser', function () {
  this.timeout(60_000);
  let browser: Browser;

  // Hooks run in the order they are declared: a missing browser skips the rest before the server
  // starts, and the browser closes before the server.
  before(function () {
    if (!browserAvailable()) this.skip();
  });
  after(async () => {
    await browser?.close();
  });
  const server = useTestServer('sqlite', {}, { per: 'suite' });
  before(async () => {
    browser = await launchBrowser();
  });

  it('renders every operation of the spec, with no script blocked or failing', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    expect(await page.locator('.info .title').first().innerText()).to.contain('payments-api');
    // Each block's id is `operations-<tag>-<operationId>`; an operation with two tags shows twice.
    const ids = await page.locator('.opblock').evaluateAll((blocks) => blocks.map((b) => b.id.split('-').pop()));
    // Every operation, and one block per event type of the spec's `webhooks` section.
    const operationIds = routeOperations().map((route) => route.operationId);
    expect(ids).to.include.members(operationIds);
    const webhooks = Object.keys((loadSpec() as { webhooks?: object }).webhooks ?? {});
    expect(new Set(ids).size).to.equal(operationIds.length + webhooks.length);
    expect(problems).to.deep.equal([]);
    await page.screenshot({ path: process.env.DOCS_SCREENSHOT ?? '/tmp/payments-docs.png' });
  });

  it("renders a schema's Markdown table, the payment intent statuses, as a table", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    // The Schemas list is virtualised: only the schemas scrolled into its box are rendered.
    const title = page.locator('section.models .json-schema-2020-12__title', { hasText: /^PaymentIntentStatus$/ });
    for (let step = 0; step < 100 && (await title.count()) === 0; step++) {
      const moved = await page.evaluate(
        () =>
          new Promise<boolean>((resolve) => {
            const list = (globalThis as any).document.querySelector('section.models .models-scroll');
            const before = list.scrollTop;
            list.scrollTop += list.clientHeight / 2;
            (globalThis as any).requestAnimationFrame(() => resolve(list.scrollTop !== before));
          }),
      );
      if (!moved) break;
    }
    await title.click();
    const schema = page.locator('section.models article[data-json-schema-level="0"]', {
      has: page.locator('.json-schema-2020-12__title', { hasText: /^PaymentIntentStatus$/ }),
    });
    const table = schema.locator('.renderedMarkdown table');
    await table.waitFor();
    expect(await table.locator('th').allInnerTexts()).to.deep.equal(['status', 'meaning', 'next']);
    const statuses = (loadSpec() as any).components.schemas.PaymentIntentStatus.enum;
    expect(await table.locator('tbody tr td:first-child').allInnerTexts()).to.deep.equal(statuses);
    await page.close();
  });

  it('serves the contract itself as JSON', async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).to.equal(200);
    const spec = (await response.json()) as { openapi: string; paths: object };
    expect(spec.openapi).to.equal('3.1.0');
    expect(Object.keys(spec.paths)).to.include('/v1/charges');
  });
});
