/**
 * What the CLI writes: results on stdout (JSON that pipes into jq, or a table), progress and
 * status on stderr, so that `payments … | jq` only ever sees results.
 */
import { styleText as nodeStyleText } from 'node:util';

type Stream = NodeJS.WritableStream & { isTTY?: boolean };
type Style = Parameters<typeof nodeStyleText>[0];

/**
 * `text` in `style`, unconditionally: whether to colour is decided here ({@link colourFor}), for the
 * stream written to. Node 22.13+ `styleText` would otherwise check `process.stdout` itself and drop
 * the colour of stderr's lines when stdout is piped (`validateStream`, which Node 20 lacks and ignores).
 */
const styleText = (style: Style, text: string): string =>
  (nodeStyleText as (format: Style, text: string, options: { validateStream: boolean }) => string)(style, text, { validateStream: false });

/**
 * Whether to colour what goes to `stream`: FORCE_COLOR forces it (`0` or `false` forbids it, as
 * in Node), NO_COLOR turns it off, and otherwise only a terminal gets colour. Decided here
 * because Node 20's `styleText` styles unconditionally.
 */
export function colourFor(stream: Stream, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

/** `value` as 2-space JSON, its keys, strings, numbers and literals coloured as jq does. */
export function colouredJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? '';
  // Tokens of JSON.stringify's own output: a string (a key when followed by a colon), a number, a literal.
  return text.replace(
    /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g,
    (match, string: string | undefined, colon: string | undefined, number: string | undefined, literal: string | undefined) => {
      if (string !== undefined) return colon !== undefined ? styleText(['bold', 'blue'], string) + colon : styleText('green', string);
      if (number !== undefined) return styleText('cyan', number);
      if (literal !== undefined) return styleText(literal === 'null' ? 'gray' : 'yellow', literal);
      return match;
    },
  );
}

/** Writes `value` as pretty JSON (2-space) and a newline; coloured only per {@link colourFor}. Nothing for `undefined` (an empty body). */
export function printJson(value: unknown, stream: Stream = process.stdout): void {
  if (value === undefined) return;
  const text = colourFor(stream) ? colouredJson(value) : JSON.stringify(value, null, 2);
  stream.write(`${text}\n`);
}

/** Writes `value` as one line of compact JSON (for `--json` streams: one object per line). */
export function printJsonLine(value: unknown, stream: Stream = process.stdout): void {
  stream.write(`${JSON.stringify(value)}\n`);
}

/** A progress or status line on stderr (dim on a terminal), never on stdout. */
export function note(message: string, stream: Stream = process.stderr): void {
  stream.write(`${paint('dim', message, stream)}\n`);
}

/** `text` in `style` when `stream` gets colour, else as is. */
export function paint(style: Style, text: string, stream: Stream = process.stdout): string {
  return colourFor(stream) ? styleText(style, text) : text;
}

/** Writes `rows` as columns padded to the widest cell, two spaces apart; the first row is the header. */
export function printTable(rows: string[][], stream: Stream = process.stdout): void {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  rows.forEach((row, index) => {
    const line = row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
    stream.write(`${index === 0 && rows.length > 1 ? paint('bold', line, stream) : line}\n`);
  });
}

/** Unix seconds as `YYYY-MM-DD HH:MM:SS` in the local time zone, as a terminal user reads time. */
export function localTime(seconds: number): string {
  const date = new Date(seconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
  );
}
