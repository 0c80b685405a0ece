/**
 * `payments events resend <evt_id>`: sends an event again to the endpoints that received it, by
 * retrying its webhook deliveries (`POST /v1/webhook_deliveries/{id}/retry`, one manual attempt
 * due at once). The API retries succeeded deliveries as readily as failed ones, so every delivery
 * of the event is resent, whatever its status: "resend" means the endpoint gets it again. With
 * `--forward-to`, the event goes to a local URL instead, as `payments listen` forwards it.
 */
import { Command, Option } from 'commander';
import { autoPaginate, type PaymentsClient, type WebhookDelivery } from '../../sdk/src/index.js';
import { connectFor } from './connection.js';
import { CommandFailure, dataOrThrow, UsageError } from './failures.js';
import { createForwarder, forwardUrl } from './forwarder.js';
import { listenSecret } from './listen-secret.js';
import { note, printJson } from './output.js';

/** The `events resend` command. */
export function eventsResendCommand(): Command {
  return new Command('resend')
    .description("Send an event again to the account's endpoints that received it (or to one), and print the deliveries (JSON).")
    .argument('<event-id>', 'the event, evt_…')
    .addOption(new Option('--webhook-endpoint <id>', 'only to this endpoint, we_…'))
    .addOption(
      new Option('-f, --forward-to <url>', 'instead, POST it to this local URL as `payments listen` does, signed with its secret').conflicts(
        'webhookEndpoint',
      ),
    )
    .addHelpText('after', RESEND_HELP)
    .action(async (eventId: string, options: { webhookEndpoint?: string; forwardTo?: string }, command: Command) => {
      const { client } = await connectFor(command);
      if (options.forwardTo !== undefined) return forwardAgain(client, eventId, options.forwardTo);
      const deliveries = await deliveriesOf(client, eventId, options.webhookEndpoint);
      const resent: WebhookDelivery[] = [];
      for (const delivery of deliveries) resent.push(dataOrThrow(await client.retryWebhookDelivery(delivery.id)));
      printJson(resent);
      note(`Resent ${eventId} to ${resent.length} endpoint${resent.length === 1 ? '' : 's'}; each delivery is pending until the worker sends it.`);
    });
}

/**
 * Sends the event to a local handler as `payments listen` forwards it (the same body, headers and
 * secret), for trying a fixed handler again; prints what it answered. Exit 1 unless it answered 2xx.
 */
async function forwardAgain(client: PaymentsClient, eventId: string, given: string): Promise<void> {
  const url = forwardUrl(given);
  if (url === undefined) throw new UsageError(`--forward-to must be an http(s) URL, got ${JSON.stringify(given)}`);
  const event = dataOrThrow(await client.retrieveEvent(eventId));
  const result = await createForwarder(url, listenSecret())(event);
  printJson({ id: event.id, type: event.type, forwarded_to: url, status: result.status ?? null, duration_ms: result.durationMs, error: result.error ?? null });
  if (result.status === undefined || result.status < 200 || result.status > 299) {
    throw new CommandFailure(`${url} answered ${result.error ?? result.status}`);
  }
}

/**
 * The event's deliveries (to `endpointId` only, if given). A missing event or endpoint is the
 * API's 404; an event that went to no endpoint (none was subscribed) is a {@link CommandFailure}.
 */
async function deliveriesOf(client: PaymentsClient, eventId: string, endpointId: string | undefined): Promise<WebhookDelivery[]> {
  dataOrThrow(await client.retrieveEvent(eventId));
  if (endpointId !== undefined) dataOrThrow(await client.retrieveWebhookEndpoint(endpointId));
  const deliveries: WebhookDelivery[] = [];
  const pages = autoPaginate((after) =>
    client.listWebhookDeliveries({ event: eventId, endpoint: endpointId, limit: 100, starting_after: after }),
  );
  for await (const delivery of pages) deliveries.push(delivery);
  if (deliveries.length === 0) {
    const where = endpointId === undefined ? 'any webhook endpoint' : `webhook endpoint ${endpointId}`;
    throw new CommandFailure(`event ${eventId} was not sent to ${where} (no endpoint was subscribed to it), so there is nothing to resend`);
  }
  return deliveries.reverse(); // oldest first, the order the endpoints got it
}

const RESEND_HELP = `
Every delivery of the event is sent again, succeeded and failed alike; the output is a JSON array
of the deliveries, now pending. Exit 1 if the event was delivered to no endpoint (or not to the one
named). With --forward-to, no endpoint is involved: the event goes straight to that URL, signed as
\`payments listen\` signs what it forwards, and the output is the handler's answer (exit 1 unless 2xx).

Examples:
  $ payments events resend evt_NYDGg1G2KYFFx2bEQzNQrRt5
  $ payments events resend evt_NYDGg1G2KYFFx2bEQzNQrRt5 --webhook-endpoint we_4LGPL5SsVPplfSpw9dDtdbhh
  $ payments events resend evt_NYDGg1G2KYFFx2bEQzNQrRt5 --forward-to http://localhost:3000/webhooks`;
