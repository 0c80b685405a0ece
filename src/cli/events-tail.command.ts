/** `payments events tail`: the account's events, live, one line each (or one JSON object each). */
import { Command, Option } from 'commander';
import { connect } from './connection.js';
import { eventTypes } from './listen.command.js';
import { localTime, note, printJsonLine } from './output.js';
import { stopOnSignals } from './signals.js';

interface TailOptions {
  events?: string;
  json?: boolean;
}

/** The `events tail` command. */
export function eventsTailCommand(): Command {
  return new Command('tail')
    .description('Print the account\'s events as they happen.')
    .addOption(new Option('-e, --events <types>', 'only these event types, comma-separated (default: all)'))
    .addOption(new Option('--json', 'print each whole event as one line of JSON instead of time, type and id'))
    .addHelpText('after', TAIL_HELP)
    .action(async (options: TailOptions, command: Command) => {
      const types = eventTypes(options.events);
      const connection = await connect(command.optsWithGlobals());
      // Loaded here: graphql-ws and ws would add a third of a second to every other command's start.
      const { followEvents } = await import('./event-feed.js');
      const feed = followEvents({
        connection,
        types,
        onStatus: (message) => note(message),
        onConnected: (again) =>
          note(again ? 'reconnected; printing the events committed meanwhile' : 'Ready! Waiting for events (^C to quit)'),
        onEvent: (event) => {
          if (options.json) return printJsonLine(event);
          const time = localTime(event.created);
          process.stdout.write(`${time}  ${event.type}  ${event.id}\n`);
        },
      });
      stopOnSignals(() => feed.stop());
      await feed.done;
    });
}

const TAIL_HELP = `
Events are printed as they are committed, oldest first; when the connection drops, tail reconnects
and prints the events committed meanwhile, so none is missed.

Examples:
  $ payments events tail
  $ payments events tail --events charge.succeeded,refund.created
  $ payments events tail --json | jq .data.object.amount`;
