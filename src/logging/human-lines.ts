import type { PrettyOptions } from 'pino-pretty';

/** Fields that hold an error (pino serializes `err` as its type, message and stack). */
const ERROR_FIELDS = ['err', 'error'];
/** Fields that the line shows in its own way (time, level) or below it (an error's stack). */
const SHOWN_APART = new Set(['time', 'level', ...ERROR_FIELDS]);

/**
 * A log entry's text after its time and level: the message, then each other field as
 * `name=value`, on one line. A field whose value the message already says (the URL in `Ready at
 * <url>`) is left out; an entry without a message (a request's) is its fields alone. An error's
 * stack follows, indented, on the lines below.
 */
export function humanMessage(log: Record<string, unknown>, messageKey: string): string {
  const message = typeof log[messageKey] === 'string' ? (log[messageKey] as string) : '';
  const fields = Object.entries(log)
    .filter(([name, value]) => name !== messageKey && !SHOWN_APART.has(name) && value !== undefined)
    .filter(([, value]) => !(typeof value === 'string' && value !== '' && message.includes(value)))
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const line = [message, ...fields].filter((part) => part !== '').join(' ');
  const stacks = ERROR_FIELDS.map((name) => errorText(log[name])).filter((text) => text !== undefined);
  return [line, ...stacks.map((text) => text.replace(/^/gm, '    '))].join('\n');
}

function errorText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return value === undefined ? undefined : String(value);
  const { stack, message } = value as { stack?: unknown; message?: unknown };
  if (typeof stack === 'string') return stack;
  return typeof message === 'string' ? message : JSON.stringify(value);
}

/** pino-pretty's settings for lines a person reads: local time, level, the message and its fields. */
export function humanLineOptions(colorize: boolean): PrettyOptions {
  return {
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat: (log, messageKey) => humanMessage(log, messageKey),
    // The fields and an error's stack are in the message (humanMessage).
    hideObject: true,
    singleLine: true,
  };
}
