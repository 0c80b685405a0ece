/**
 * The guides' Markdown as HTML for the server to serve: headings carry GitHub's ids (the links are
 * written against them), and each link is made to work from where the page is served.
 */
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import { createSlugger } from '../pages/heading-slug.js';

/** Project files that the server serves elsewhere: a guide's link to one goes there. */
const SERVED_ELSEWHERE: Record<string, string> = { 'openapi/openapi.yaml': '/openapi.yaml' };

/**
 * Headings get GitHub's ids (the links are written against them). A link to another served file
 * stays relative; one to the contract goes to where the server serves it; one to any other file of
 * the checkout (a source file, a folder) has nowhere to go in a browser and is left as its text.
 */
function markdownFor(file: string, served: ReadonlySet<string>): MarkdownIt {
  const markdown = new MarkdownIt({ html: false, linkify: false });
  markdown.core.ruler.push('project_links', (state) => {
    const slug = createSlugger();
    state.tokens.forEach((token, index) => {
      if (token.type === 'heading_open') token.attrSet('id', slug(state.tokens[index + 1].content));
      if (token.type === 'inline') relinkChildren(token.children ?? [], file, served);
    });
  });
  return markdown;
}

function relinkChildren(children: Token[], file: string, served: ReadonlySet<string>): void {
  const opened: Token[] = [];
  for (const token of children) {
    if (token.type === 'link_open') {
      opened.push(token);
      const href = token.attrGet('href') ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#')) continue;
      const [target] = href.split('#');
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
      if (served.has(resolved)) continue;
      if (SERVED_ELSEWHERE[resolved]) {
        token.attrSet('href', SERVED_ELSEWHERE[resolved]);
        continue;
      }
      token.tag = 'span';
      token.attrs = null;
    } else if (token.type === 'link_close') {
      token.tag = opened.pop()?.tag ?? token.tag;
    }
  }
}

/** The HTML of `source`, the Markdown of project file `file`, whose links may reach the `served` files. */
export function renderMarkdown(file: string, source: string, served: ReadonlySet<string>): string {
  return markdownFor(file, served).render(source);
}

