import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { anchorsOf, brokenReason, headingSlug, linksOf } from '../helpers/markdown-links.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** README.md and every guide under docs/, relative to the project. */
function documentation(): string[] {
  const guides = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...guides.sort().map((name) => `docs/${name}`)];
}

describe('README.md and docs/: links', () => {
  it('slugs headings as GitHub does', () => {
    const cases: Array<[string, string]> = [
      ['Try it with curl', 'try-it-with-curl'],
      ['The local loop: `payments listen`', 'the-local-loop-payments-listen'],
      ['1. N API processes and M workers over one Postgres', '1-n-api-processes-and-m-workers-over-one-postgres'],
      ['4. Sharding by account on Citus: a plan on paper', '4-sharding-by-account-on-citus-a-plan-on-paper'],
      ['Webhooks, the `payments` command and the dashboard', 'webhooks-the-payments-command-and-the-dashboard'],
      ['Any path: `rawRequest`', 'any-path-rawrequest'],
      ['POST with a new key on SQLite', 'post-with-a-new-key-on-sqlite'],
    ];
    for (const [heading, slug] of cases) expect(headingSlug(heading), heading).to.equal(slug);
    expect([...anchorsOf('# A\n\n## Notes\n\n## Notes\n\n```\n## not a heading\n```\n')]).to.deep.equal(['a', 'notes', 'notes-1']);
  });

  it('finds links in text and reference definitions, not in code', () => {
    const markdown = 'See [a](docs/a.md#x) and [`b`](b.md), not `[c](c.md)`.\n\n```\n[d](d.md)\n```\n[e]: e.md\n';
    expect(linksOf(markdown, 'README.md').map((link) => `${link.line} ${link.target}`)).to.deep.equal(['1 docs/a.md#x', '1 b.md', '6 e.md']);
  });

  it('every relative link of README.md and docs/*.md reaches a file, and every anchor a heading', () => {
    const files = documentation();
    const links = files.flatMap((file) => linksOf(fs.readFileSync(path.join(ROOT, file), 'utf8'), file));
    expect(links.length).to.be.greaterThan(50);
    const broken = links.flatMap((link) => {
      const reason = brokenReason(link, ROOT);
      return reason ? [`${link.file}:${link.line}: ${reason}`] : [];
    });
    expect(broken).to.deep.equal([]);
  });

  it('every guide under docs/ opens with who it is for', () => {
    const openings = documentation()
      .filter((file) => file !== 'README.md')
      .map((file) => {
        const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
        // The first paragraph after the title.
        const paragraph = text.split('\n\n').find((block) => !block.startsWith('#')) ?? '';
        return { file, opening: paragraph.replace(/\s+/g, ' ').slice(0, 60) };
      });
    expect(openings.filter(({ opening }) => !/^For [a-z]/.test(opening))).to.deep.equal([]);
  });

  it('the README stays a front page (at most 250 lines) and links every guide under docs/', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).to.be.at.most(250);
    const linked = new Set(linksOf(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'README.md').map((link) => link.target.split('#')[0]));
    const unlinked = documentation().filter((file) => file !== 'README.md' && !linked.has(file));
    expect(unlinked).to.deep.equal([]);
  });
});
