import fs from 'node:fs';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import MarkdownIt from 'markdown-it';
import { projectFile } from '../operations/project-files.js';
import { siteHeader, siteStylesheet } from '../pages/site-chrome.js';
import { renderMarkdown } from './guide-markdown.js';

/** Where the guides are served: each file at its path in the project, so their relative links work as written. */
const GUIDES_PATH = '/guides/';

/** Files of the project that link to each other besides docs/*.md: they are served too. */
const OTHER_FILES = ['README.md', 'sdk/README.md', 'CHANGELOG.md'];

/** README.md, every guide under docs/, and the few files they link that are Markdown, by project path. */
function guideFiles(): string[] {
  const docs = fs
    .readdirSync(projectFile('docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return [...OTHER_FILES, ...docs].filter((file) => fs.existsSync(projectFile(file)));
}

/** A guide as a page: its Markdown rendered under the shared header. */
function renderGuide(file: string, served: ReadonlySet<string>): string {
  const source = fs.readFileSync(projectFile(file), 'utf8');
  const title = /^#\s+(.*)$/m.exec(source)?.[1].replace(/`/g, '') ?? file;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${MarkdownIt().utils.escapeHtml(title)} · payments-api</title>
  <link rel="stylesheet" href="${siteStylesheet().url}">
</head>
<body class="site-page">
  ${siteHeader(GUIDES_PATH)}
  <main class="guide">
${renderMarkdown(file, source, served)}
  </main>
</body>
</html>
`;
}

/** The served files, found once per process; each page rendered on its first request (every test builds an app). */
let guides: { served: Set<string>; pages: Map<string, string> } | undefined;

/** The page at `urlPath` (`/guides/`, `/guides/docs/webhooks.md`), or undefined when no guide is there. */
function guidePage(urlPath: string): string | undefined {
  guides ??= { served: new Set(guideFiles()), pages: new Map() };
  const file = urlPath === GUIDES_PATH ? 'README.md' : urlPath.slice(GUIDES_PATH.length);
  if (!guides.served.has(file)) return undefined;
  let page = guides.pages.get(file);
  if (page === undefined) {
    page = renderGuide(file, guides.served);
    guides.pages.set(file, page);
  }
  return page;
}

/**
 * The guides for people in a browser: README.md at `/guides/` (and `/guides/README.md`), each guide
 * under docs/ at `/guides/docs/<name>.md`, and the SDK's README and the changelog, rendered with
 * the header every page shares. The Markdown files stay the source; GitHub shows them the same way.
 */
export function createGuidesRouter(): RequestHandler {
  // Strict, so that `/guides` (redirected) and `/guides/` (the README) are two routes.
  const router = express.Router({ strict: true });
  router.get('/guides', (_req, res) => res.redirect(301, GUIDES_PATH));
  router.get(/^\/guides\/.*$/, helmet(), (req, res, next) => {
    const page = guidePage(req.path);
    if (page === undefined) return next();
    res.set('Cache-Control', 'no-cache').type('html').send(page);
  });
  return (req, res, next) => (req.path === '/guides' || req.path.startsWith(GUIDES_PATH) ? router(req, res, next) : next());
}
