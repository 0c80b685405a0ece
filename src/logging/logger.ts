import { pino, type Logger, type LoggerOptions } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { humanLineOptions } from './human-lines.js';

export type { Logger };

/** How log lines are written: one JSON object per line, or a line a person reads. */
export type LogFormat = 'json' | 'pretty';

/**
 * The format to write in: `LOG_FORMAT` when it is set, else lines for a person on a terminal and
 * JSON anywhere else (a file, a pipe, a log collector).
 */
export function chooseLogFormat(setting: LogFormat | undefined, stdoutIsTerminal: boolean): LogFormat {
  return setting ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

/**
 * The process's logger, writing to stdout in `format`. The pretty lines are made in this thread
 * and written synchronously, like pino's own JSON: not through a transport's worker thread, which
 * would have to be flushed and ended before every `process.exit`, or lose the last lines.
 */
export function createLogger(level: string, format: LogFormat = 'json'): Logger {
  const options: LoggerOptions = { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime };
  if (format === 'json') return pino(options);
  const prettify = prettyFactory(humanLineOptions(Boolean(process.stdout.isTTY)));
  const stdout = pino.destination({ dest: 1, sync: true });
  return pino(options, {
    write: (line: string) => {
      // With the fields hidden as an object (they are in the message), pino-pretty ends no line.
      const text = prettify(line);
      stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
  });
}
