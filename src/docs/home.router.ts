import fs from 'node:fs';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Dialect } from '../db/database.js';
import { projectFile } from '../operations/project-files.js';
import { loadSpec } from '../operations/spec.js';
import { escapeHtml } from '../pages/html-text.js';
import { SITE_PAGES, siteHeader, siteStylesheet, type SitePage } from '../pages/site-chrome.js';

/** What the home page says runs here. */
export interface HomeFacts {
  /** The engine of the database the API uses. */
  database: Dialect;
  /** Whether lists and events are read from a replica (`DATABASE_READ_URL`). */
  readReplica: boolean;
  /** How many API processes serve this port (`WEB_CONCURRENCY`, see cluster.ts). */
  apiProcesses: number;
  /**
   * The origin of the URLs the server gives out (`PUBLIC_URL`, or its listener's), where each
   * charge's `receipt_url` points; read at the first request, once the server listens (port 0 picks
   * its port then). Left out: the page does not state it.
   */
  publicOrigin?: () => string;
}

/** Where a person goes from the server's root, each with what it is: the header's pages and the contract. */
export const HOME_LINKS: readonly SitePage[] = [
  ...SITE_PAGES,
  { path: '/openapi.yaml', title: 'OpenAPI contract', what: 'the spec this server is built from (also /openapi.json)' },
  {
    path: '/guides/docs/integrating.md#receipts',
    title: 'Receipts',
    what: "each paid charge's page at its receipt_url (/receipts/… on the receipts' origin), opened without an API key",
  },
];

const ENGINES: Record<Dialect, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** The version of the server (package.json) and of the API contract it serves (the spec's `info.version`). */
function versions(): { server: string; contract: string } {
  const { version } = JSON.parse(fs.readFileSync(projectFile('package.json'), 'utf8')) as { version: string };
  return { server: version, contract: (loadSpec().info as { version: string }).version };
}

/** The fact naming the receipts' origin, linked: receipt pages and receipt e-mails point there. */
function receiptsOrigin(facts: HomeFacts): string {
  if (!facts.publicOrigin) return '';
  const origin = escapeHtml(facts.publicOrigin());
  return `      <div><dt>Receipts' origin</dt><dd data-fact="receipts-origin"><a href="${origin}/">${origin}</a></dd></div>`;
}

function renderPage(facts: HomeFacts): string {
  const { server, contract } = versions();
  const database = `${ENGINES[facts.database]}${facts.readReplica ? ', lists and events read from a replica' : ''}`;
  const fact = (name: string, title: string, value: string) =>
    `      <div><dt>${title}</dt><dd data-fact="${name}">${value}</dd></div>`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>payments-api</title>
  <link rel="stylesheet" href="${siteStylesheet().url}">
</head>
<body class="site-page">
  ${siteHeader('/')}
  <main>
    <h1>payments-api</h1>
    <p class="lede">A payments API you run yourself: customers, payment intents, charges, refunds,
    events and signed webhooks, on the wire conventions of the most widely used payments API.</p>
    <dl class="facts" aria-label="What runs here">
${fact('version', 'Version', `${server} (API contract ${contract})`)}
${fact('database', 'Database', database)}
${fact('api-processes', 'API processes', String(facts.apiProcesses))}
${receiptsOrigin(facts)}
    </dl>
    <h2>Pages</h2>
    <ul class="cards">
${HOME_LINKS.map((link) => `      <li><a href="${link.path}"><strong>${link.title}</strong><span>${link.what}</span></a></li>`).join('\n')}
    </ul>
    <h2>First call</h2>
    <p>Authenticate with the key the first start saved in <code>DATA_DIR/dev-api-key</code>:</p>
    <pre><code>curl -u "$(cat data/dev-api-key):" ${escapeHtml(facts.publicOrigin?.() ?? 'http://127.0.0.1:4242')}/v1/charges</code></pre>
    <p>The <a href="/guides/">guides</a> go on from there: a five-minute tour, then every call.</p>
  </main>
</body>
</html>
`;
}

/**
 * `GET /`: the page a person sees on opening the server's address: what runs here (version,
 * database, API processes, the receipts' origin) and the pages to go on to, under the header every
 * page shares; and that header's stylesheet. Built at the first request (the server listens by
 * then), then static, with helmet's HTML headers.
 */
export function createHomeRouter(facts: HomeFacts): RequestHandler {
  let page: string | undefined;
  const stylesheet = siteStylesheet();
  const router = express.Router();
  const pageHeaders = helmet();
  router.get('/', pageHeaders, (_req, res) => {
    page ??= renderPage(facts);
    res.set('Cache-Control', 'no-cache').type('html').send(page);
  });
  router.get(stylesheet.url, pageHeaders, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=31536000, immutable').type('text/css').send(stylesheet.body);
  });
  return (req, res, next) => (req.path === '/' || req.path === stylesheet.url ? router(req, res, next) : next());
}
