/**
 * `payments get|post|delete <path>`: any call to the API, its JSON answer on stdout (exit 0), or
 * its error envelope on stderr (exit 1). Parameters are `-d key=value` form fields, bracket
 * notation passing through as written (`-d "metadata[order]=6735"`).
 */
import { Command, Option } from 'commander';
import type { RawMethod } from '../../sdk/src/index.js';
import { connectFor } from './connection.js';
import { dataOrThrow, UsageError } from './failures.js';
import { printJson } from './output.js';

/** The three generic call commands, `get`, `post` and `delete`. */
export function apiCallCommands(): Command[] {
  return [
    callCommand('GET', 'get', 'Send a GET request; -d fields become query parameters.', GET_EXAMPLES),
    callCommand('POST', 'post', 'Send a POST request; -d fields are its form body.', POST_EXAMPLES).addOption(
      new Option('--idempotency-key <key>', 'the Idempotency-Key to send (default: a new random one, kept across retries)'),
    ),
    callCommand('DELETE', 'delete', 'Send a DELETE request; -d fields become query parameters.', DELETE_EXAMPLES),
  ];
}

function callCommand(method: RawMethod, name: string, description: string, examples: string): Command {
  return new Command(name)
    .description(description)
    .argument('<path>', 'the path, e.g. /v1/charges (the API base comes from --api-base)')
    .option('-d, --data <key=value>', 'a parameter; repeat for more, bracket notation as is', collect, [])
    .addHelpText('after', examples)
    .action(async (path: string, options: { data: string[]; idempotencyKey?: string }, command: Command) => {
      const fields = formFields(options.data);
      const { client } = await connectFor(command);
      const answer = await client.rawRequest(method, apiPath(path), fields, { idempotencyKey: options.idempotencyKey });
      printJson(dataOrThrow(answer));
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `-d` values as form fields, in the order given (a repeated key sends a repeated field). */
export function formFields(data: string[]): URLSearchParams {
  const fields = new URLSearchParams();
  for (const item of data) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`-d takes key=value, got ${JSON.stringify(item)}`);
    fields.append(item.slice(0, at), item.slice(at + 1));
  }
  return fields;
}

/** The path as the SDK takes it: a leading slash added if missing; a full URL is refused (the server is --api-base's). */
export function apiPath(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) || path.startsWith('//')) {
    throw new UsageError(`give a path such as /v1/charges, not a URL (the server is set with --api-base): ${path}`);
  }
  return path.startsWith('/') ? path : `/${path}`;
}

const GET_EXAMPLES = `
Examples:
  $ payments get /v1/charges -d limit=3
  $ payments get /v1/customers/cus_4LGPL5SsVPplfSpw9dDtdbhh
  $ payments get /v1/events -d type=charge.succeeded | jq '.data[].id'`;

const POST_EXAMPLES = `
Examples:
  $ payments post /v1/customers -d email=jenny@example.com -d "metadata[order]=6735"
  $ payments post /v1/charges -d amount=2000 -d currency=usd -d source=tok_visa --idempotency-key order-6735
  $ payments post /v1/webhook_endpoints -d url=https://example.com/hooks -d "enabled_events[]=*"`;

const DELETE_EXAMPLES = `
Examples:
  $ payments delete /v1/customers/cus_4LGPL5SsVPplfSpw9dDtdbhh
  $ payments delete /v1/webhook_endpoints/we_4LGPL5SsVPplfSpw9dDtdbhh`;
