/**
 * The `payments` command: its global options and every subcommand. main.ts runs it; tests and
 * other entry points can build it with {@link createProgram} and parse their own argv.
 */
import fs from 'node:fs';
import { Command, Option } from 'commander';
import { projectFile } from '../operations/project-files.js';
import { apiCallCommands } from './api-call.command.js';
import { DEFAULT_API_BASE } from './connection.js';
import { eventsResendCommand } from './events-resend.command.js';
import { eventsTailCommand } from './events-tail.command.js';
import { listenCommand } from './listen.command.js';
import { logsCommand } from './logs-tail.command.js';
import { triggerCommand } from './trigger.command.js';

/** The root command with its global options (`--api-base`, `--api-key`) and all subcommands. */
export function createProgram(): Command {
  const program = new Command('payments')
    .description('Call the payments API, trigger its events, follow its logs and forward its webhooks.')
    .version(packageVersion(), '-V, --version')
    .addOption(new Option('--api-base <url>', 'where the server is').default(DEFAULT_API_BASE))
    .addOption(new Option('--api-key <key>', 'the API key (default: $DATA_DIR/dev-api-key, as the dev server saves it)').env('PAYMENTS_API_KEY'))
    .showSuggestionAfterError()
    .addHelpText('after', ROOT_EXAMPLES);
  for (const command of apiCallCommands()) program.addCommand(command);
  program.addCommand(triggerCommand());
  const events = new Command('events')
    .description('Work with events: follow them live, send them again.')
    .addHelpText('after', EVENTS_EXAMPLES);
  events.addCommand(eventsResendCommand());
  events.addCommand(eventsTailCommand());
  program.addCommand(events);
  program.addCommand(logsCommand());
  program.addCommand(listenCommand());
  throwInsteadOfExiting(program);
  return program;
}

/**
 * Makes every command throw a `CommanderError` instead of exiting, so main.ts decides the exit
 * code. Commander copies such settings only to commands made with `.command()`, not to those given
 * to `.addCommand()`, so each is set here, once the tree is whole.
 */
function throwInsteadOfExiting(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) throwInsteadOfExiting(sub);
}

function packageVersion(): string {
  // Found from the project's root: this module runs from src/cli under tsx and from dist/ bundled.
  const text = fs.readFileSync(projectFile('package.json'), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

const EVENTS_EXAMPLES = `
Examples:
  $ payments events tail
  $ payments events resend evt_NYDGg1G2KYFFx2bEQzNQrRt5`;

const ROOT_EXAMPLES = `
Examples:
  $ payments get /v1/charges -d limit=3
  $ payments post /v1/customers -d email=jenny@example.com -d "metadata[order]=6735"
  $ payments trigger charge.succeeded
  $ payments logs tail
  $ PAYMENTS_API_KEY=sk_test_… payments --api-base http://127.0.0.1:4242 get /v1/events

The API key comes from --api-key, else PAYMENTS_API_KEY, else $DATA_DIR/dev-api-key (DATA_DIR
defaults to ./data). Exit codes: 0 success, 1 API error or unreachable server, 2 usage error.`;
