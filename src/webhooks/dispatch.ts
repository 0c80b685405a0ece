import type { SecretBox } from '../domain/secret-box.js';
import type { Logger } from '../logging/logger.js';
import { placeOf, WEBHOOK_PREVIOUS_SECRET, WEBHOOK_SECRET } from '../resources/shared/sealed-secrets.js';
import { toEventResource } from '../resources/events/events.mapper.js';
import type { EventRow } from '../resources/events/events.repo.js';
import { parseSignatureHeaderAliases } from '../resources/webhook-endpoints/webhook-endpoints.mapper.js';
import type { WebhookEndpointRow } from '../resources/webhook-endpoints/webhook-endpoints.repo.js';
import type { AttemptRow, DeliveryRow, DeliveryTargets } from '../resources/webhook-deliveries/webhook-deliveries.repo.js';
import { completeDelivery, type LeasedDelivery } from './attempts.repo.js';
import { attemptOutcomeOf, classifyAttempt, type AttemptOutcome } from './classify-attempt.js';
import type { FailureNotifier } from './failure-notices.js';
import { recordAttempt, type EndedAttempt, type Recorded, type RecordDeps } from './record-attempt.js';
import type { Sender, SendResult } from './sender.js';
import { signatureHeaders, type SignatureHeaderAlias } from './signing.js';

/** What an attempt needs: the record stage's database, clock and batching, and these. */
export interface DispatchDeps extends RecordDeps {
  logger: Logger;
  send: Sender;
  /** Opens the endpoints' sealed secrets. */
  secrets: SecretBox;
  retryScheduleSeconds: readonly number[];
  /**
   * The other names a delivery's signature header is sent under for an endpoint that leaves its
   * `signature_header_aliases` null (`WEBHOOK_SIGNATURE_HEADER_ALIASES`); none when not given.
   */
  defaultSignatureHeaderAliases?: readonly SignatureHeaderAlias[];
  notifyFailure?: FailureNotifier;
  /** Told of every HTTP attempt as soon as it ends, before it is recorded (metrics); must not throw. */
  observeAttempt?: AttemptObserver;
}

export type AttemptObserver = (outcome: AttemptOutcome, durationMs: number) => void;

/**
 * Makes one attempt of a leased delivery, given its event and endpoint as read for its batch
 * (`loadDeliveryTargets`), stage by stage: send (the event signed afresh), classify what came back
 * (classify-attempt.ts), record the attempt with the delivery's new state, rescheduled or given up
 * (record-attempt.ts), and tell the account's owner when it was given up or the endpoint disabled.
 */
export async function dispatchDelivery(
  deps: DispatchDeps,
  delivery: DeliveryRow,
  owner: string,
  targets: DeliveryTargets,
  /** Called once the HTTP request is over (or was not made), before the outcome is recorded. */
  onRequestEnded?: () => void,
): Promise<void> {
  const leased: LeasedDelivery = { id: delivery.id, owner, eventId: delivery.event_id };
  // Both belong to the delivery's account: deliveries are written with their event's and endpoint's.
  const event = targets.events.get(delivery.event_id);
  const endpoint = targets.endpoints.get(delivery.endpoint_id);
  if (!event || !endpoint || endpoint.status === 'disabled') {
    const reason = !event ? 'event no longer exists' : !endpoint ? 'endpoint was deleted' : 'endpoint is disabled';
    const end = { status: 'failed', last_response_status: null, last_error: reason } as const;
    await completeDelivery(deps.db, leased, end, deps.clock.nowMs());
    return;
  }
  const { attempt, result } = await sendAttempt(deps, delivery, event, endpoint);
  onRequestEnded?.();
  deps.observeAttempt?.(attemptOutcomeOf(result), result.durationMs);
  const verdict = classifyAttempt(result, {
    attempts: delivery.attempts + 1,
    scheduleSeconds: deps.retryScheduleSeconds,
    nowMs: attempt.started_at,
  });
  const ended: EndedAttempt = { delivery: leased, endpoint, attempt, verdict };
  await tellOwner(deps, ended, await recordAttempt(deps, ended));
}

/** Signs the event afresh with the endpoint's valid secrets and POSTs it: the attempt's row, and what came back. */
async function sendAttempt(
  deps: DispatchDeps,
  delivery: DeliveryRow,
  event: EventRow,
  endpoint: WebhookEndpointRow,
): Promise<{ attempt: AttemptRow; result: SendResult }> {
  const body = JSON.stringify(deliveredEvent(event, endpoint));
  const nowMs = deps.clock.nowMs();
  const aliases = parseSignatureHeaderAliases(endpoint.signature_header_aliases) ?? deps.defaultSignatureHeaderAliases ?? [];
  const headers = signatureHeaders(body, event.id, validSecrets(deps.secrets, endpoint, nowMs), Math.floor(nowMs / 1000), aliases);
  const result = await deps.send(endpoint.url, body, headers);
  const attempt: AttemptRow = {
    delivery_id: delivery.id,
    account_id: delivery.account_id,
    delivery_created: Number(delivery.created),
    started_at: nowMs,
    duration_ms: result.durationMs,
    response_status: result.status ?? null,
    response_body: result.body || null,
    error: result.error ?? null,
    manual: delivery.manual_retry,
  };
  return { attempt, result };
}

/**
 * The event as the endpoint gets it: as the widely used payments API does, in the API version the
 * endpoint was created for, which its `api_version` names; the account's version when it named
 * none. This server's objects have one shape, the same in every version.
 */
function deliveredEvent(event: EventRow, endpoint: WebhookEndpointRow) {
  return { ...toEventResource(event), api_version: endpoint.api_version ?? event.api_version };
}

/** The current secret, and the previous one while its rotation overlap lasts. */
function validSecrets(box: SecretBox, endpoint: WebhookEndpointRow, nowMs: number): string[] {
  const secrets = [box.open(endpoint.secret, placeOf(WEBHOOK_SECRET, endpoint.id))];
  if (endpoint.previous_secret && Number(endpoint.previous_secret_expires_at) > nowMs) {
    secrets.push(box.open(endpoint.previous_secret, placeOf(WEBHOOK_PREVIOUS_SECRET, endpoint.id)));
  }
  return secrets;
}

/** Logs a delivery given up or an endpoint disabled, and sends the account's owner the failure notice. */
async function tellOwner(deps: DispatchDeps, ended: EndedAttempt, recorded: Recorded): Promise<void> {
  const { endpoint, attempt, verdict } = ended;
  const { logger } = deps;
  if (recorded.gaveUp) {
    logger.warn({ delivery: attempt.delivery_id, endpoint: endpoint.id, error: verdict.error }, 'webhook delivery failed for good');
  }
  if (recorded.disabled === 'gone') logger.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled: it answered 410 Gone');
  if (recorded.disabled === 'failing') logger.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled after failing continuously');
  // The owner of an endpoint that answered 410 is told once, by the attempt that disabled it.
  const owed = recorded.disabled !== undefined || (recorded.gaveUp && verdict.kind !== 'disable_endpoint');
  if (!deps.notifyFailure || !owed) return;
  await deps.notifyFailure(deps.db, {
    accountId: attempt.account_id,
    endpointId: endpoint.id,
    endpointUrl: endpoint.url,
    nowMs: attempt.started_at,
    disabled: recorded.disabled,
  });
}
