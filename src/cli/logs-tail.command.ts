/**
 * `payments logs tail`: the account's API requests as they happen, one line each (or one JSON
 * object per line with `--json`), oldest first, until Ctrl-C. Only requests made after it starts
 * are shown. Status and reconnection messages go to stderr.
 */
import { Command, Option } from 'commander';
import type { RequestLog } from '../../sdk/src/index.js';
import { connectFor } from './connection.js';
import { localTime, note, paint, printJsonLine } from './output.js';
import { followRequestLogs } from './request-log-feed.js';

/** The `logs` command group, with `tail`. */
export function logsCommand(): Command {
  return new Command('logs')
    .description("The account's API request log.")
    .addHelpText('after', '\nExamples:\n  $ payments logs tail\n  $ payments logs tail --json')
    .addCommand(logsTailCommand());
}

function logsTailCommand(): Command {
  return new Command('tail')
    .description("Print the account's API requests as they are made (time, method, path, status, request id, duration).")
    .addOption(new Option('--json', 'one JSON object per line (the request log entry as the API has it) instead of text'))
    .addHelpText('after', TAIL_HELP)
    .action(async (options: { json?: boolean }, command: Command) => {
      // The feed backs off by itself (with a note) instead of the SDK retrying silently.
      const { client, apiBase } = await connectFor(command, { maxRetries: 0 });
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await followRequestLogs({
          client,
          signal: stop.signal,
          onEntries: (entries) => entries.forEach(options.json ? (entry) => printJsonLine(entry) : printLogLine),
          onStatus: note,
          onReady: () => note(`Following the request log of ${apiBase} (Ctrl-C to stop)…`),
        });
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

/** One entry as a line: `2025-06-01 12:00:00  POST    /v1/charges  200  req_…  4.2 ms`. */
export function logLine(entry: RequestLog): string {
  const status = String(entry.status);
  const style = entry.status >= 500 ? 'red' : entry.status >= 400 ? 'yellow' : 'green';
  return [
    localTime(entry.created),
    entry.method.padEnd(6),
    entry.path,
    paint(style, status),
    entry.id,
    `${entry.duration_ms.toFixed(1)} ms`,
  ].join('  ');
}

function printLogLine(entry: RequestLog): void {
  process.stdout.write(`${logLine(entry)}\n`);
}

const TAIL_HELP = `
Polls GET /v1/request_logs about once a second. Requests made before it starts are not shown;
while the server is unreachable it says so on stderr and keeps trying.

Examples:
  $ payments logs tail
  $ payments logs tail --json | jq -c 'select(.status >= 400)'
  $ payments --api-base http://127.0.0.1:4242 logs tail`;
