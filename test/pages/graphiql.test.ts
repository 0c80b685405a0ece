import { expect } from 'chai';
import type { Browser, BrowserContext, Page, WebSocket } from 'playwright-core';
import { browserAvailable, collectPageProblems, keepScreenshot, launchBrowser } from '../helpers/browser.js';
import { aCharge, aCustomer } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { useTestServer } from '../helpers/test-server.js';

const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const HEADERS_TAB = '.graphiql-editor-tools button[data-name="headers"]';
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
const RESULT_EDITOR = '.result-window .CodeMirror';
const RUN_BUTTON = '.graphiql-execute-button';
const DOCS_BUTTON = '.graphiql-sidebar button[aria-label="Show Documentation Explorer"]';

/** A browser tab on GraphiQL with everything that went wrong on it: errors, CSP reports, failed or foreign loads. */
interface GraphiQLTab {
  page: Page;
  problems: string[];
  /** The page's WebSockets, in the order it opened them. */
  sockets: WebSocket[];
  /** `METHOD url` of every request the page made. */
  requests: string[];
  /** The headers the page itself was served with. */
  pageHeaders: Record<string, string>;
}

// On both engines: the subscription's events reach the page through each engine's event stream.
forEachDatabase('GraphiQL at GET /graphql in a real browser', function (engine) {
  let browser: Browser;
  let context: BrowserContext;

  // Hooks run in the order they are declared: a missing browser skips the rest before the server
  // starts, and the browser closes before the server.
  before(function () {
    if (!browserAvailable()) this.skip();
  });
  after(async () => {
    await browser?.close();
  });
  const server = useTestServer(engine, {}, { per: 'suite' });
  before(async function () {
    this.timeout(90_000);
    browser = await launchBrowser();
  });
  // A context per test: its own localStorage, so what GraphiQL keeps is never another test's.
  beforeEach(async function () {
    // A browser run takes longer than the suite-wide 20 s when a subscription must be retried.
    this.currentTest?.timeout(60_000);
    context = await browser.newContext();
  });
  afterEach(async () => {
    await context?.close();
  });

  async function openGraphiQL(): Promise<GraphiQLTab> {
    const page = await context.newPage();
    const sockets: WebSocket[] = [];
    const requests: string[] = [];
    const problems = await collectPageProblems(page, server.url);
    page.on('request', (request) => requests.push(`${request.method()} ${request.url()}`));
    page.on('websocket', (socket) => sockets.push(socket));
    const response = await page.goto(`${server.url}/graphql`);
    await page.waitForSelector(RESULT_EDITOR, { timeout: 20_000 });
    return { page, problems, sockets, requests, pageHeaders: response!.headers() };
  }

  it('serves GraphiQL from this server under a strict CSP, with a working query and the key template', async () => {
    const tab = await openGraphiQL();
    const csp = tab.pageHeaders['content-security-policy'];
    expect(csp).to.match(/(^|;)script-src 'self'(;|$)/);
    expect(csp).to.contain("script-src-attr 'none'");
    expect(await tab.page.locator('script:not([src])').count(), 'inline scripts').to.equal(0);

    const query = await editorText(tab.page, QUERY_EDITOR);
    expect(query).to.contain('charges(first: 5)').and.to.contain('data/dev-api-key');
    expect(JSON.parse(await headersText(tab.page))).to.deep.equal({
      Authorization: 'Bearer sk_test_…',
    });
    // Until a key replaces the template, the page says where the key is and sends nothing.
    await eventually(
      async () => expect(await editorText(tab.page, RESULT_EDITOR)).to.contain('data/dev-api-key'),
      10_000,
    );
    expect(tab.requests.filter((request) => !request.startsWith('GET '))).to.deep.equal([]);
    expect(tab.problems).to.deep.equal([]);
    await keepScreenshot(tab.page, 'graphiql');
  });

  it('serves its assets with long cache lifetimes, and the page itself revalidated and varying by Accept', async () => {
    const page = await fetch(`${server.url}/graphql`, {
      headers: { Accept: 'text/html,*/*;q=0.8' },
    });
    expect(page.status).to.equal(200);
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    expect(page.headers.get('vary')).to.equal('Accept');
    const html = await page.text();
    // The stylesheets and scripts (the shared header's links are pages, not assets).
    const urls = [...html.matchAll(/<(?:link|script)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(urls).to.have.length(8);
    for (const url of urls) {
      // GraphiQL's own, and the stylesheet every page shares.
      expect(url, 'served from this server').to.match(/^\/(graphql\/assets\/|assets\/site\.)/);
      const asset = await fetch(server.url + url);
      expect(asset.status, url).to.equal(200);
      expect(asset.headers.get('cache-control'), url).to.equal(
        'public, max-age=31536000, immutable',
      );
      expect(asset.headers.get('content-type'), url).to.match(
        url.endsWith('.css') ? /^text\/css/ : /javascript/,
      );
    }
  });

  it('lets every request that does not ask for a page through to the GraphQL handler', async () => {
    const key = `Bearer ${server.api.apiKey}`;
    for (const accept of ['application/json', 'application/graphql-response+json', '*/*']) {
      const response = await fetch(
        `${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`,
        {
          headers: { Accept: accept, Authorization: key },
        },
      );
      expect(response.status, accept).to.equal(200);
      expect(await response.json(), accept).to.deep.equal({ data: { __typename: 'Query' } });
      // Without a query it is still GraphQL's answer (an error saying what is missing), not the page.
      const withoutQuery = await fetch(`${server.url}/graphql`, {
        headers: { Accept: accept, Authorization: key },
      });
      expect(withoutQuery.headers.get('content-type'), accept).to.match(/json/);
      const { errors } = (await withoutQuery.json()) as { errors: unknown[] };
      expect(errors, accept).to.be.an('array').with.length.greaterThan(0);
    }
    // A browser that sends a query in the URL is asking GraphQL, not for the page.
    const withQuery = await fetch(
      `${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`,
      {
        headers: { Accept: 'text/html,application/json;q=0.9', Authorization: key },
      },
    );
    expect(withQuery.headers.get('content-type')).to.match(/json/);
    expect(await withQuery.json()).to.deep.equal({ data: { __typename: 'Query' } });
  });

  it('runs the default query with the key typed in the headers editor, and keeps the key for the next visit', async () => {
    const customer = await aCustomer(server.api, { email: 'graphiql@example.com' });
    const charge = await aCharge(server.api, { customer: customer.id, amount: 4200 });
    const tab = await openGraphiQL();
    await tab.page.click(DOCS_BUTTON);
    await typeHeaders(tab.page, { Authorization: `Bearer ${server.api.apiKey}` });
    // The schema is read again with the new key: the docs now show the API's root types.
    await eventually(
      async () =>
        expect(await tab.page.locator('.graphiql-doc-explorer').innerText()).to.contain(
          'Subscription',
        ),
      10_000,
    );

    const expected = {
      id: charge.id,
      amount: 4200,
      currency: 'usd',
      state: 'SUCCEEDED',
      customer: { email: 'graphiql@example.com' },
    };
    await tab.page.click(RUN_BUTTON);
    await eventually(
      async () =>
        expect(firstCharge(await editorText(tab.page, RESULT_EDITOR))).to.deep.equal(expected),
      10_000,
    );

    await tab.page.reload();
    await tab.page.waitForSelector(RESULT_EDITOR, { timeout: 20_000 });
    expect(JSON.parse(await headersText(tab.page))).to.deep.equal({
      Authorization: `Bearer ${server.api.apiKey}`,
    });
    await tab.page.click(RUN_BUTTON);
    await eventually(
      async () =>
        expect(firstCharge(await editorText(tab.page, RESULT_EDITOR))).to.deep.equal(expected),
      10_000,
    );
    expect(tab.problems).to.deep.equal([]);
  });

  it('streams a subscription over a WebSocket authenticated by the headers editor, until stopped', async () => {
    const tab = await openGraphiQL();
    await typeHeaders(tab.page, { Authorization: `Bearer ${server.api.apiKey}` });
    await setEditorText(tab.page, QUERY_EDITOR, 'subscription { events { id type } }');
    await recordResults(tab.page);
    await tab.page.click(RUN_BUTTON);
    await eventually(() => expect(tab.sockets).to.have.length(1), 10_000);
    const socket = tab.sockets[0];
    expect(socket.url()).to.equal(`${server.url.replace('http:', 'ws:')}/graphql`);

    // The server may take a moment to start the subscription after the socket opens, so charge
    // again until one charge's event arrives, each time giving it a few seconds.
    const charges: string[] = [];
    let shown: { id: string; type: string } | undefined;
    for (let attempt = 0; attempt < 5 && !shown; attempt++) {
      charges.push((await aCharge(server.api)).id);
      await eventually(async () => {
        shown = (await shownEvents(tab.page)).find((event) => event.type === 'charge.succeeded');
        expect(shown).to.not.equal(undefined);
      }, 3000).catch(() => undefined);
    }
    expect(shown, 'a charge.succeeded event in the result pane').to.not.equal(undefined);
    const events = await server.api.get('/v1/events?type=charge.succeeded&limit=100');
    const recorded = events.body.data.find((event: any) => event.id === shown!.id);
    expect(recorded, 'the event the REST API recorded').to.not.equal(undefined);
    expect(charges).to.include(recorded.data.object.id);

    // The run button is the stop button while a subscription runs; stopping closes the socket.
    await tab.page.click(RUN_BUTTON);
    await eventually(() => expect(socket.isClosed()).to.equal(true), 10_000);
    expect(tab.problems).to.deep.equal([]);
  });
});

/** The text of one of GraphiQL's CodeMirror editors (it renders only the visible lines, so not innerText). */
function editorText(page: Page, selector: string): Promise<string> {
  return page.locator(selector).evaluate((element: any) => element.CodeMirror.getValue() as string);
}

function setEditorText(page: Page, selector: string, text: string): Promise<void> {
  return page
    .locator(selector)
    .evaluate((element: any, value) => element.CodeMirror.setValue(value), text);
}

async function headersText(page: Page): Promise<string> {
  await page.click(HEADERS_TAB);
  return editorText(page, HEADERS_EDITOR);
}

/** Replaces the headers editor's content as a person pasting into it would. */
async function typeHeaders(page: Page, headers: Record<string, string>): Promise<void> {
  await page.click(HEADERS_TAB);
  await page.click(HEADERS_EDITOR);
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(JSON.stringify(headers));
}

/** Keeps every text the result pane shows: a subscription replaces it with each new event. */
function recordResults(page: Page): Promise<void> {
  return page.locator(RESULT_EDITOR).evaluate((element: any) => {
    const shown: string[] = [];
    (globalThis as any).shownResults = shown;
    element.CodeMirror.on('change', (editor: any) => shown.push(editor.getValue()));
  });
}

/** The events the result pane has shown since recordResults(). */
async function shownEvents(page: Page): Promise<{ id: string; type: string }[]> {
  const texts: string[] = await page.evaluate(() => (globalThis as any).shownResults);
  return texts.flatMap((text) => {
    try {
      const event = JSON.parse(text)?.data?.events;
      return event ? [event] : [];
    } catch {
      return []; // the pane is cleared ('') when a run starts
    }
  });
}

function firstCharge(resultText: string): unknown {
  return JSON.parse(resultText || '{}')?.data?.charges?.edges?.[0]?.node;
}
