/**
 * The relative links of Markdown files and whether they resolve: the file or folder exists, and an
 * anchor (`#heading`) names a heading of the Markdown file it points into, slugged as GitHub
 * renders headings. Offline: links with a scheme (`https:`, `mailto:`) are left alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createSlugger, headingSlug } from '../../src/pages/heading-slug.js';

export { headingSlug };

/** A link as written, with where it is. */
export interface MarkdownLink {
  file: string;
  line: number;
  target: string;
}

/** The text with fenced code blocks blanked out, line count kept, so that nothing in them is read as Markdown. */
function withoutFences(markdown: string): string {
  let inFence = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

/** The anchors a Markdown file offers: one per heading (a repeated one gets `-1`, `-2`, …) and each `id`/`name` attribute. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const slug = createSlugger();
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) anchors.add(slug(heading[1]));
    for (const match of line.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
  }
  return anchors;
}

/** Every inline link `[text](target)` and reference definition `[label]: target` of a Markdown file, outside code. */
export function linksOf(markdown: string, file: string): MarkdownLink[] {
  // Code spans are blanked too (same length), so an example like `[a](b)` is not a link.
  const text = withoutFences(markdown).replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  const links: MarkdownLink[] = [];
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ file, line: lineAt(match.index), target: match[1] });
  }
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/gm)) {
    links.push({ file, line: lineAt(match.index), target: match[1] });
  }
  return links;
}

/** What is wrong with `link` (a missing file or anchor), or undefined when it resolves; `root` is the project. */
export function brokenReason(link: MarkdownLink, root: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined;
  const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const from = path.join(root, link.file);
  const target = pathPart === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(pathPart));
  if (!target.startsWith(root)) return `${link.target} leaves the project`;
  if (!fs.existsSync(target)) return `${link.target}: no such file`;
  if (anchor === undefined) return undefined;
  if (!target.endsWith('.md')) return undefined;
  const anchors = anchorsOf(fs.readFileSync(target, 'utf8'));
  return anchors.has(anchor) ? undefined : `${link.target}: ${path.relative(root, target)} has no heading #${anchor}`;
}
