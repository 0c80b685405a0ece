/**
 * `payments listen --forward-to <url>`: the account's events, live, forwarded to a handler on this
 * machine as signed deliveries. The server never dials the developer's machine: the CLI holds the
 * connection (event-feed.ts) and makes the local request itself (forwarder.ts), so no endpoint is
 * registered and no private-network setting is needed.
 */
import { Command, Option } from 'commander';
import { EventType } from '../../sdk/src/index.js';
import type { PaymentsEvent } from '../../sdk/src/generated/events.js';
import { connect } from './connection.js';
import { UsageError } from './failures.js';
import { createForwarder, forwardUrl, type ForwardResult } from './forwarder.js';
import { listenSecret } from './listen-secret.js';
import { localTime, note, paint, printJsonLine } from './output.js';
import { stopOnSignals } from './signals.js';

interface ListenOptions {
  forwardTo?: string;
  events?: string;
  json?: boolean;
  printSecret?: boolean;
}

/** The `listen` command. */
export function listenCommand(): Command {
  return new Command('listen')
    .description('Receive the account\'s events live and forward each to a local URL, signed as a webhook delivery.')
    .addOption(new Option('-f, --forward-to <url>', 'the local handler to POST each event to (http://localhost:3000/webhooks)'))
    .addOption(new Option('-e, --events <types>', 'only these event types, comma-separated (default: all)'))
    .addOption(new Option('--json', 'print one JSON object per event instead of a line of text'))
    .addOption(new Option('--print-secret', 'print the signing secret the forwarded events carry, and exit'))
    .addHelpText('after', LISTEN_HELP)
    .action(async (options: ListenOptions, command: Command) => {
      if (options.printSecret) {
        process.stdout.write(`${listenSecret()}\n`);
        return;
      }
      await listen(options, command);
    });
}

async function listen(options: ListenOptions, command: Command): Promise<void> {
  const target = options.forwardTo === undefined ? undefined : forwardUrl(options.forwardTo);
  if (options.forwardTo !== undefined && target === undefined) {
    throw new UsageError(`--forward-to must be an http(s) URL, got ${JSON.stringify(options.forwardTo)}`);
  }
  const types = eventTypes(options.events);
  const connection = await connect(command.optsWithGlobals());
  // Loaded here: graphql-ws and ws would add a third of a second to every other command's start.
  const { followEvents } = await import('./event-feed.js');
  const secret = listenSecret();
  const forward = target === undefined ? undefined : createForwarder(target, secret);
  const feed = followEvents({
    connection,
    types,
    onStatus: (message) => note(message),
    onConnected: (again) => {
      if (again) return note(`reconnected to ${connection.apiBase}; forwarding the events committed meanwhile`);
      const what = types ? [...types].join(', ') : 'every event';
      const where = target ? `to ${target}` : 'nowhere (no --forward-to: printing only)';
      note(`Ready! Forwarding ${what} ${where}. Your webhook signing secret is ${secret} (^C to quit)`);
    },
    onEvent: async (event) => report(event, forward ? await forward(event) : undefined, options.json === true),
  });
  stopOnSignals(() => feed.stop());
  await feed.done;
}

/** One line per event: when, its type and id, and what the local handler answered. */
function report(event: PaymentsEvent, result: ForwardResult | undefined, json: boolean): void {
  const time = localTime(event.created);
  if (json) {
    printJsonLine({ time, type: event.type, id: event.id, status: result?.status ?? null, duration_ms: result?.durationMs ?? null, error: result?.error ?? null });
    return;
  }
  const outcome = result === undefined ? '' : result.error !== undefined ? paint('red', ` → error: ${result.error}`) : ` → ${statusText(result.status!)} [${result.durationMs} ms]`;
  process.stdout.write(`${time}  ${event.type}  ${event.id}${outcome}\n`);
}

function statusText(status: number): string {
  return paint(status >= 200 && status < 300 ? 'green' : 'red', String(status));
}

/** `--events a,b` as a set of known types; undefined for all. */
export function eventTypes(given: string | undefined): ReadonlySet<string> | undefined {
  if (given === undefined || given.trim() === '' || given.trim() === '*') return undefined;
  const known = new Set<string>(Object.values(EventType));
  const types = given.split(',').map((type) => type.trim()).filter((type) => type !== '');
  const unknown = types.filter((type) => !known.has(type));
  if (unknown.length > 0) throw new UsageError(`unknown event type ${unknown.join(', ')}; the types are: ${[...known].join(', ')}`);
  return new Set(types);
}

const LISTEN_HELP = `
Each event is POSTed to --forward-to with the same body and headers as a webhook delivery
(Service-Signature, webhook-id, webhook-timestamp, webhook-signature), signed with a secret kept in
$DATA_DIR/listen-webhook-secret: the same one every time, so configure your handler with it once.
One line per event goes to stdout (time, type, id, the handler's status and duration); status and
reconnect messages go to stderr. When the connection drops, listen reconnects and forwards the
events committed meanwhile, so none is lost.

Examples:
  $ payments listen --forward-to http://localhost:3000/webhooks
  $ payments listen --forward-to localhost:3000/webhooks --events charge.succeeded,charge.failed
  $ export WEBHOOK_SECRET=$(payments listen --print-secret)`;
