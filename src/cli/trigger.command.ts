/**
 * `payments trigger <event-type>`: makes the API calls that produce an event of that type and
 * prints the objects they made, as one JSON array on stdout (always JSON: they are API objects of
 * several kinds, which a table would not fit). What it is doing goes to stderr.
 */
import { Command } from 'commander';
import { connectFor } from './connection.js';
import { UsageError } from './failures.js';
import { note, printJson } from './output.js';
import { isTrigger, TRIGGERS, type Trigger } from './triggers.js';

/** The `trigger` command. */
export function triggerCommand(): Command {
  return new Command('trigger')
    .description('Make the API calls that produce an event of the given type, and print the objects made (JSON).')
    .argument('<event-type>', 'the event type, e.g. charge.succeeded')
    .addHelpText('after', triggerHelp())
    .action(async (eventType: string, _options: object, command: Command) => {
      const trigger = triggerFor(eventType);
      const { client } = await connectFor(command);
      note(`Triggering ${eventType}: ${trigger.does}…`);
      const made = await trigger.run(client);
      printJson(made);
      note(`Done; see the event with: payments get /v1/events -d type=${eventType} -d limit=1`);
    });
}

/** The trigger of `eventType`, or a usage error saying which types can be triggered (or why this one cannot). */
export function triggerFor(eventType: string): Trigger {
  const entry = Object.hasOwn(TRIGGERS, eventType) ? TRIGGERS[eventType as keyof typeof TRIGGERS] : undefined;
  if (entry && isTrigger(entry)) return entry;
  const supported = triggerableTypes().join(', ');
  if (entry) throw new UsageError(`${eventType} cannot be triggered: ${entry.notTriggerable}. Supported: ${supported}`);
  throw new UsageError(`unknown event type ${JSON.stringify(eventType)}. Supported: ${supported}`);
}

/** The event types that have a trigger, in the spec's order. */
export function triggerableTypes(): string[] {
  return Object.entries(TRIGGERS)
    .filter(([, entry]) => isTrigger(entry))
    .map(([type]) => type);
}

function triggerHelp(): string {
  const width = Math.max(...Object.keys(TRIGGERS).map((type) => type.length));
  const lines = Object.entries(TRIGGERS).map(([type, entry]) =>
    `  ${type.padEnd(width)}  ${isTrigger(entry) ? entry.does : `(cannot be triggered: ${entry.notTriggerable})`}`,
  );
  return `
Event types:
${lines.join('\n')}

Prints a JSON array of the objects made, in order (declines are expected: exit 0). Progress goes to stderr.

Examples:
  $ payments trigger charge.succeeded
  $ payments trigger charge.failed | jq '.[0].failure_code'
  $ payments --api-base http://127.0.0.1:4242 trigger payment_intent.succeeded`;
}
