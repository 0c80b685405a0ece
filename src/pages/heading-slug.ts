/**
 * GitHub's anchor for a Markdown heading (as github-slugger makes it): lower case, every character
 * but letters, digits, `_`, `-` and spaces removed, spaces as `-`. The guides' links are written
 * against GitHub's anchors, so the served guides give their headings the same ids.
 */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** A slugger for one document: a heading seen before gets `-1`, `-2`, … as on GitHub. */
export function createSlugger(): (heading: string) => string {
  const seen = new Map<string, number>();
  return (heading) => {
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    return count === 0 ? slug : `${slug}-${count}`;
  };
}
