/**
 * What every HTML page of the server shares (`/`, `/docs`, `/graphql`, `/dashboard`, the guides):
 * one header, naming the service and linking the pages a person moves between, and one
 * stylesheet for it. The stylesheet's rules are all scoped to the header and to `.site-page`, so
 * it can sit beside Swagger UI's and GraphiQL's own styles.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { projectFile } from '../operations/project-files.js';

/** A page of the server a person can open, as the header and the home page name it. */
export interface SitePage {
  path: string;
  title: string;
  /** What is there, in a few words (the home page says it). */
  what: string;
}

/** The pages in the header, in its order. */
export const SITE_PAGES: readonly SitePage[] = [
  { path: '/docs', title: 'API reference', what: 'every REST operation, with its parameters, answers and errors (Swagger UI)' },
  { path: '/graphql', title: 'GraphQL', what: 'the same services through GraphQL, in GraphiQL' },
  { path: '/dashboard', title: 'Dashboard', what: 'payments, events, webhook deliveries and failed webhooks' },
  { path: '/guides/', title: 'Guides', what: 'integrating, authentication, webhooks, GraphQL, operating, designing, developing' },
];

/** The stylesheet, served under a name that carries its content hash, so a browser may keep it for good. */
export interface SiteStylesheet {
  url: string;
  body: Buffer;
}

let stylesheet: SiteStylesheet | undefined;

/** `site.css`, read once. */
export function siteStylesheet(): SiteStylesheet {
  if (!stylesheet) {
    const body = fs.readFileSync(projectFile('src/pages/site.css'));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    stylesheet = { url: `/assets/site.${hash}.css`, body };
  }
  return stylesheet;
}

/** The header's HTML; `current` is the path of the page it heads, marked `aria-current`. */
export function siteHeader(current: string): string {
  const links = SITE_PAGES.map((page) => {
    const marked = page.path === current ? ' aria-current="page"' : '';
    return `<a href="${page.path}" data-label="${page.title}"${marked}>${page.title}</a>`;
  }).join('');
  const home = current === '/' ? ' aria-current="page"' : '';
  return (
    `<header class="site-header"><a class="site-name" href="/"${home}>payments-api</a>` +
    `<nav class="site-nav" aria-label="Pages">${links}</nav></header>`
  );
}
