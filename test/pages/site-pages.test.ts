import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { loadSpec } from '../../src/operations/spec.js';
import { browserAvailable, collectPageProblems, keepScreenshot, launchBrowser } from '../helpers/browser.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVER_VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const CONTRACT_VERSION = (loadSpec().info as { version: string }).version;

/** What the header shows: the name and each link with its target, and which one is marked current. */
interface HeaderSeen {
  links: Array<{ text: string; href: string }>;
  current: string[];
}

async function headerOf(page: Page): Promise<HeaderSeen> {
  const header = page.locator('header.site-header');
  await header.waitFor();
  expect(await header.count(), 'one shared header').to.equal(1);
  const links = await header.locator('a').evaluateAll((anchors) =>
    anchors.map((anchor) => ({ text: (anchor as any).textContent.trim(), href: (anchor as any).getAttribute('href') })),
  );
  const current = await header.locator('a[aria-current="page"]').evaluateAll((anchors) => anchors.map((anchor) => (anchor as any).getAttribute('href')));
  return { links, current };
}

/** Whether the header is styled by the shared stylesheet (not the browser's defaults): a flex row in a system font. */
async function headerStyle(page: Page): Promise<{ display: string; font: string; borderBottom: string; box: string }> {
  return page.locator('header.site-header').evaluate((header) => {
    const style = (globalThis as any).getComputedStyle(header);
    const { x, y, height } = header.getBoundingClientRect();
    // Where each link stands: marking the current page must not move the others.
    const links = [...header.querySelectorAll('a')].map((anchor: any) => {
      const box = anchor.getBoundingClientRect();
      return `${Math.round(box.x)}+${Math.round(box.width)}`;
    });
    return { display: style.display, font: style.fontFamily, borderBottom: style.borderBottomStyle, box: `${x},${y} ${height}px; links at ${links.join(' ')}` };
  });
}

// On both engines: the home page names the one it runs on.
forEachDatabase('the pages in a real browser: one header, and a home page saying what runs here', function (engine) {
  let browser: Browser;

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
    this.timeout(60_000);
    browser = await launchBrowser();
  });
  beforeEach(function () {
    // Five pages in a browser, Swagger UI and GraphiQL among them, take longer than the suite's 20 s.
    this.currentTest?.timeout(60_000);
  });

  /** Opens `pathname` with a browser's Accept (GraphiQL is served to browsers only) and collects what goes wrong. */
  async function open(pathname: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems = await collectPageProblems(page, server.url);
    const response = await page.goto(`${server.url}${pathname}`);
    expect(response?.status(), pathname).to.equal(200);
    return { page, problems };
  }

  it('/, /docs, /graphql, /dashboard and the guides show the same header, styled, with their own page marked, and nothing blocked', async () => {
    const seen = new Map<string, HeaderSeen>();
    const boxes = new Set<string>();
    for (const pathname of ['/', '/docs', '/graphql', '/dashboard', '/guides/']) {
      const { page, problems } = await open(pathname);
      const header = await headerOf(page);
      seen.set(pathname, header);
      expect(header.current, `${pathname} marks itself`).to.deep.equal([pathname]);
      const style = await headerStyle(page);
      expect(style.display, pathname).to.equal('flex');
      expect(style.font, pathname).to.match(/system-ui/);
      expect(style.borderBottom, pathname).to.equal('solid');
      boxes.add(style.box);
      // Swagger UI and GraphiQL load after the header: their scripts ran under the CSP too.
      if (pathname === '/docs') await page.waitForSelector('.opblock', { timeout: 20_000 });
      if (pathname === '/graphql') await page.waitForSelector('.graphiql-query-editor', { timeout: 20_000 });
      expect(problems, pathname).to.deep.equal([]);
      if (pathname === '/guides/') await keepScreenshot(page, `guides-${engine}`);
      await page.close();
    }
    const home = seen.get('/')!;
    expect(home.links.map((link) => link.text)).to.deep.equal(['payments-api', 'API reference', 'GraphQL', 'Dashboard', 'Guides']);
    for (const [pathname, header] of seen) expect(header.links, pathname).to.deep.equal(home.links);
    // At the window's top left on every page, as tall, each link in the same place: the pages' own
    // styles and the marked link do not move it.
    expect([...boxes]).to.have.length(1);
    expect([...boxes][0]).to.match(/^0,0 /);
  });

  it("/ states the version, the database engine, the number of API processes and the receipts' origin", async () => {
    const { page, problems } = await open('/');
    const fact = (name: string) => page.locator(`[data-fact="${name}"]`).innerText();
    expect(await fact('version')).to.equal(`${SERVER_VERSION} (API contract ${CONTRACT_VERSION})`);
    expect(await fact('database')).to.equal(engine === 'sqlite' ? 'SQLite' : 'PostgreSQL');
    expect(await fact('api-processes')).to.equal('1');
    // The origin a charge's receipt_url points to, linked.
    const charge = (await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa' })).body;
    const receiptsOrigin = new URL(charge.receipt_url).origin;
    expect(await fact('receipts-origin')).to.equal(receiptsOrigin);
    expect(await page.locator('[data-fact="receipts-origin"] a').getAttribute('href')).to.equal(`${receiptsOrigin}/`);
    // The first call it shows goes to the same origin.
    expect(await page.locator('main pre').innerText()).to.contain(`${receiptsOrigin}/v1/charges`);
    // Styled like the dashboard, not the browser's default serif.
    const font = await page.locator('body').evaluate((body) => (globalThis as any).getComputedStyle(body).fontFamily);
    expect(font).to.match(/system-ui/);
    expect(problems).to.deep.equal([]);
    await keepScreenshot(page, `home-${engine}`);
    await page.close();
  });

  it("every link of / and of every served guide answers 200, each anchor naming an element of its page", async () => {
    const { page } = await open('/');
    const hrefs = await page.locator('a[href]').evaluateAll((anchors) => anchors.map((anchor) => (anchor as any).href as string));
    expect(hrefs).to.include.members(['/docs', '/graphql', '/dashboard', '/openapi.yaml', '/guides/'].map((p) => `${server.url}${p}`));
    const guides = await open('/guides/');
    const guideHrefs = await guides.page.locator('main a[href]').evaluateAll((anchors) => anchors.map((anchor) => (anchor as any).href as string));
    expect(guideHrefs.filter((href) => href.includes('/guides/docs/')).length, 'the README links the guides').to.be.greaterThan(7);
    // Then every page those lead to under /guides/, and every link of theirs (as served: relative ones resolved).
    const toCheck = [...new Set([...hrefs, ...guideHrefs])].filter((href) => href.startsWith(`${server.url}/`));
    const checked = new Set<string>();
    const crawled = new Set<string>();
    while (toCheck.length > 0) {
      const url = new URL(toCheck.pop()!);
      if (checked.has(url.href)) continue;
      checked.add(url.href);
      const answer = await fetch(url, { headers: { Accept: 'text/html' } });
      expect(answer.status, url.href).to.equal(200);
      const text = await answer.text();
      if (url.hash) expect(text, url.href).to.include(`id="${decodeURIComponent(url.hash.slice(1))}"`);
      const page = `${url.origin}${url.pathname}`;
      if (!url.pathname.startsWith('/guides/') || crawled.has(page)) continue;
      crawled.add(page);
      const main = text.slice(text.indexOf('<main'));
      for (const [, href] of main.matchAll(/<a href="([^"]+)"/g)) {
        const target = new URL(href.replaceAll('&amp;', '&'), page);
        if (target.origin === url.origin) toCheck.push(target.href);
      }
    }
    expect(crawled.size, 'guide pages crawled').to.be.greaterThan(9);
    await page.close();
    await guides.page.close();
  });
});
