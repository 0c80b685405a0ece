import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { parse } from 'yaml';
import { routeOperations } from '../../src/operations/routes.js';
import { loadSpec } from '../../src/operations/spec.js';
import { browserAvailable, collectPageProblems, keepScreenshot, launchBrowser } from '../helpers/browser.js';
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
    await keepScreenshot(page, 'docs');
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

  it('serves the contract pointing at the server it came from, as JSON and YAML alike', async () => {
    const json = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    // Relative URLs: a client resolves them against the document's own URL, whatever the port or host.
    expect(json.servers.map((s: { url: string }) => s.url)).to.deep.equal(['/']);
    expect(json.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).to.equal('/oauth/token');
    const yamlResponse = await fetch(`${server.url}/openapi.yaml`);
    expect(yamlResponse.headers.get('content-type')).to.match(/^application\/yaml/);
    expect(parse(await yamlResponse.text())).to.deep.equal(json);
    // Everything else is the spec as written.
    const { servers: _file, components: fileComponents, ...fileRest } = structuredClone(loadSpec()) as any;
    const { servers: _served, components: servedComponents, ...servedRest } = json;
    expect(servedRest).to.deep.equal(fileRest);
    delete fileComponents.securitySchemes.oauth2.flows.clientCredentials.tokenUrl;
    delete servedComponents.securitySchemes.oauth2.flows.clientCredentials.tokenUrl;
    expect(servedComponents).to.deep.equal(fileComponents);
  });

  it('runs "Try it out" on the server the page came from, on a port other than the spec file\'s', async () => {
    // The spec file names 127.0.0.1:4242; the page's CSP (connect-src 'self') allows only its own origin.
    expect(new URL(server.url).port).to.not.equal('4242');
    const customer = await server.api.post('/v1/customers', { email: 'jenny@example.com', name: 'Jenny Rosen' });
    const page = await browser.newPage();
    const problems = await collectPageProblems(page, server.url);
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });

    await page.locator('.auth-wrapper button.authorize').click();
    const bearer = page.locator('.auth-container', { has: page.locator('h4 code', { hasText: /^apiKey$/ }) });
    await bearer.locator('input').fill(server.apiKeys.first);
    await bearer.locator('button[type=submit]').click();
    await page.locator('.modal-ux button.close-modal').click();

    const operation = page.locator('#operations-Customers-listCustomers');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const answer = operation.locator('.live-responses-table tr.response');
    await answer.waitFor({ timeout: 20_000 });
    expect(await operation.locator('.request-url pre').innerText()).to.match(new RegExp(`^${server.url}/v1/customers(\\?|$)`));
    expect(await answer.locator('.response-col_status').innerText()).to.equal('200');
    const list = JSON.parse(await answer.locator('.response-col_description pre').first().innerText());
    expect(list.object).to.equal('list');
    expect(list.data.map((c: { id: string }) => c.id)).to.include(customer.body.id);
    expect(problems).to.deep.equal([]);
    await page.close();
  });

  it("shows a charge's example as the server sends one: its id and currency", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    const operation = page.locator('#operations-Charges-retrieveCharge');
    await operation.locator('.opblock-summary').click();
    const example = operation.locator('.responses-table tr.response[data-code="200"] .highlight-code pre').first();
    const charge = JSON.parse(await example.innerText());
    expect(charge.id).to.match(/^ch_[0-9A-Za-z]{24}$/);
    expect(charge.currency).to.equal('usd');
    expect(charge.object).to.equal('charge');
    await page.close();
  });
});
