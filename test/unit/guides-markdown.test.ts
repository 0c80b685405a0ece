import { expect } from 'chai';
import { renderMarkdown } from '../../src/docs/guide-markdown.js';

const SERVED = new Set(['README.md', 'docs/webhooks.md', 'docs/operating.md', 'sdk/README.md']);

describe('the served guides: Markdown to HTML', () => {
  it("gives headings GitHub's ids, a repeated one numbered", () => {
    const html = renderMarkdown('docs/webhooks.md', '# Webhooks\n\n## The local loop: `payments listen`\n\n## Notes\n\n## Notes\n', SERVED);
    expect([...html.matchAll(/<h\d id="([^"]+)"/g)].map((match) => match[1])).to.deep.equal([
      'webhooks',
      'the-local-loop-payments-listen',
      'notes',
      'notes-1',
    ]);
  });

  const cases: Array<{ file: string; link: string; html: string }> = [
    { file: 'docs/webhooks.md', link: '[operating](operating.md#retention)', html: '<a href="operating.md#retention">operating</a>' },
    { file: 'docs/webhooks.md', link: '[tour](../README.md#a-webhook)', html: '<a href="../README.md#a-webhook">tour</a>' },
    { file: 'README.md', link: '[SDK](sdk/README.md#authentication)', html: '<a href="sdk/README.md#authentication">SDK</a>' },
    { file: 'README.md', link: '[`openapi.yaml`](openapi/openapi.yaml)', html: '<a href="/openapi.yaml"><code>openapi.yaml</code></a>' },
    { file: 'docs/webhooks.md', link: '[the contract](../openapi/openapi.yaml)', html: '<a href="/openapi.yaml">the contract</a>' },
    { file: 'docs/webhooks.md', link: '[`sdk/`](../sdk)', html: '<span><code>sdk/</code></span>' },
    { file: 'README.md', link: '[eslint.config.js](eslint.config.js)', html: '<span>eslint.config.js</span>' },
    { file: 'README.md', link: '[below](#tests)', html: '<a href="#tests">below</a>' },
    { file: 'README.md', link: '<http://127.0.0.1:4242/dashboard>', html: '<a href="http://127.0.0.1:4242/dashboard">http://127.0.0.1:4242/dashboard</a>' },
  ];
  for (const { file, link, html } of cases) {
    it(`in ${file}, ${link} → ${html}`, () => {
      expect(renderMarkdown(file, link, SERVED).trim()).to.equal(`<p>${html}</p>`);
    });
  }

  it('escapes HTML written in a guide rather than passing it through', () => {
    expect(renderMarkdown('README.md', '<script>alert(1)</script>', SERVED)).to.not.include('<script>');
  });
});
