/**
 * Reads the fenced code blocks of a Markdown file (README.md, a guide under docs/) and splits its
 * shell blocks into commands, keeping the file and line of each, so that a test can run them in
 * order and name the line of the one that fails.
 */

/** One command of a shell block: a line, with the lines it continues onto (trailing `\`). */
export interface ReadmeCommand {
  /** The file it is written in, relative to the project (`README.md`, `docs/webhooks.md`). */
  file: string;
  /** The line it starts on (1-based). */
  line: number;
  /** Exactly as written, continuation lines included: what the shell runs. */
  text: string;
  /** The command on one line (continuations joined, runs of spaces collapsed, trailing comment dropped). */
  flat: string;
  /** The `# …` comment at the end of its last line, if any (`# 403 insufficient_scope`). */
  comment: string | undefined;
  /** The comment lines above it, from the last blank line on: what the text says it does. */
  notes: string[];
}

/** A fenced code block of a Markdown file. */
export interface ReadmeBlock {
  /** The file it is written in, relative to the project. */
  file: string;
  /** The fence's language (`bash`, `graphql`, or empty). */
  language: string;
  /** The line of its opening fence. */
  line: number;
  /** The heading it sits under. */
  section: string;
  /** Its commands, in order (only split for shell blocks; empty for the others). */
  commands: ReadmeCommand[];
}

const FENCE_OPEN = /^```(\S*)\s*$/;
const FENCE_CLOSE = /^```\s*$/;
const HEADING = /^#{1,6}\s+(.*)$/;

/** Every fenced block of `markdown` (the text of `file`), in order. Throws on a fence left open. */
export function readmeBlocks(markdown: string, file = 'README.md'): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  let section = '';
  for (let index = 0; index < lines.length; index++) {
    const heading = HEADING.exec(lines[index]);
    if (heading) section = heading[1].trim();
    const open = FENCE_OPEN.exec(lines[index]);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !FENCE_CLOSE.test(lines[index]); index++) body.push(lines[index]);
    if (index === lines.length) throw new Error(`${file}:${start + 1}: a code block is never closed`);
    const language = open[1];
    const commands = language === 'bash' ? splitCommands(body, file, start + 2) : [];
    blocks.push({ file, language, line: start + 1, section, commands });
  }
  return blocks;
}

/** Splits a shell block's lines (the first being line `firstLine` of `file`) into commands. */
function splitCommands(lines: string[], file: string, firstLine: number): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  let notes: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const trimmed = lines[index].trim();
    if (trimmed === '') {
      notes = [];
      continue;
    }
    if (trimmed.startsWith('#')) {
      notes.push(trimmed.replace(/^#\s?/, ''));
      continue;
    }
    const start = index;
    while (lines[index].endsWith('\\') && index + 1 < lines.length) index++;
    const written = lines.slice(start, index + 1);
    const { code, comment } = splitTrailingComment(written[written.length - 1]);
    const flat = [...written.slice(0, -1), code]
      .map((part) => part.replace(/\\$/, ''))
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    commands.push({ file, line: firstLine + start, text: written.join('\n'), flat, comment, notes: [...notes] });
  }
  return commands;
}

/** A line's code and its trailing `# …` comment: a `#` after a blank and outside quotes. */
function splitTrailingComment(line: string): { code: string; comment: string | undefined } {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quote) {
      if (char === '\\' && quote === '"') index++;
      else if (char === quote) quote = undefined;
    } else if (char === '\\') {
      index++;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '#' && index > 0 && /\s/.test(line[index - 1])) {
      return { code: line.slice(0, index).trimEnd(), comment: line.slice(index + 1).trim() };
    }
  }
  return { code: line, comment: undefined };
}

/** The HTTP status a trailing comment claims, and the error code after it: `# 403 insufficient_scope`. */
export function claimedStatus(comment: string | undefined): { status: number; code: string | undefined } | undefined {
  const match = comment ? /^([1-5]\d\d)\b(?:\s+([a-z][a-z0-9]*(?:_[a-z0-9]+)+))?/.exec(comment) : null;
  return match ? { status: Number(match[1]), code: match[2] } : undefined;
}
