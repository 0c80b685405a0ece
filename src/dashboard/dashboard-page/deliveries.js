/* global setTimeout, clearTimeout */
/*
 * Webhook deliveries as every view shows them: a table row with a Retry button, and the list of
 * a delivery's attempts. A retry queues one manual attempt (POST /v1/webhook_deliveries/{id}/retry)
 * and then watches the delivery until the worker has made it, so the row ends on the outcome.
 */
import { api, describeError } from './api.js';
import { badge, bringIntoView, formatMillis, formatSeconds, h, replaceChildren, table } from './dom.js';
import { PAGE_SIZE, pagedTable } from './list-view.js';
import { endpointById, eventById } from './lookups.js';

/** The headings that go with deliveryRow(). */
export const DELIVERY_HEADINGS = ['Created', 'Endpoint', 'Event', 'Status', 'Attempts', 'Last response', 'Next attempt', ''];

/** How often a retried delivery is looked at, and for how long, before the page stops watching it. */
const WATCH_INTERVAL_MS = 1000;
const WATCH_LIMIT = 180;

/**
 * A row for one delivery. `view` carries what the row needs from the view it is in: `signal`
 * (aborted when the view closes), `report(error)` and optionally `onDetails(delivery)` (shows a
 * Details button) and `onChanged(delivery)` (told after a retry changed the delivery).
 */
export function deliveryRow(delivery, view, { watching = false } = {}) {
  const retry = h('button', { type: 'button', class: 'retry', disabled: watching }, watching ? 'Sending…' : 'Retry');
  const row = h(
    'tr',
    { class: 'delivery', dataset: { id: delivery.id, status: delivery.status } },
    h('td', {}, formatSeconds(delivery.created)),
    h('td', { class: 'endpoint' }, lookedUp(endpointById(delivery.endpoint), (endpoint) => endpoint.url, delivery.endpoint)),
    h('td', { class: 'event' }, lookedUp(eventById(delivery.event), (event) => event.type, delivery.event)),
    h('td', { class: 'status' }, badge(delivery.status)),
    h('td', { class: 'attempts num' }, delivery.attempt_count),
    h('td', { class: 'last-response' }, lastResponse(delivery)),
    h('td', {}, formatSeconds(delivery.next_attempt_at)),
    h(
      'td',
      { class: 'actions' },
      retry,
      view.onDetails && h('button', { type: 'button', class: 'details', onclick: () => view.onDetails(delivery) }, 'Attempts'),
    ),
  );
  retry.addEventListener('click', () => retryDelivery(row, delivery, view));
  return row;
}

/** What the receiver last answered: its status code, or the error when there was no answer. */
function lastResponse(delivery) {
  if (delivery.last_response_status !== null) return String(delivery.last_response_status);
  return delivery.last_error ?? '—';
}

/** A span that shows `fallback` (an id) until the lookup arrives, then what `pick` takes from it. */
function lookedUp(promise, pick, fallback) {
  const span = h('span', { title: fallback }, fallback);
  promise.then(
    (found) => span.replaceChildren(pick(found)),
    // The object may be gone (a deleted endpoint): the id is all there is to show.
    () => span.replaceChildren(`${fallback} (not found)`),
  );
  return span;
}

async function retryDelivery(row, delivery, view) {
  let current = row;
  let latest = delivery;
  const show = (updated, options) => {
    const next = deliveryRow(updated, view, options);
    current.replaceWith(next);
    current = next;
    latest = updated;
    if (view.onChanged) view.onChanged(updated);
  };
  try {
    show(await api('POST', `/v1/webhook_deliveries/${encodeURIComponent(delivery.id)}/retry`), { watching: true });
    show(await watchUntilSent(delivery.id, view.signal));
  } catch (error) {
    if (view.signal.aborted) return;
    view.report(error);
    // The last state the API told us, with Retry usable again.
    show(latest);
  }
}

/** Polls a delivery until it is no longer pending (or the view closed, or the page gave up watching). */
async function watchUntilSent(id, signal) {
  let delivery;
  for (let look = 0; look < WATCH_LIMIT; look++) {
    await sleep(WATCH_INTERVAL_MS, signal);
    delivery = await api('GET', `/v1/webhook_deliveries/${encodeURIComponent(id)}`);
    if (delivery.status !== 'pending') break;
  }
  return delivery;
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/** A delivery's attempts, oldest first, from GET /v1/webhook_deliveries/{id}. */
export function attemptsTable(delivery) {
  if (!delivery.attempts || delivery.attempts.length === 0) return h('p', { class: 'empty' }, 'No attempt yet.');
  return table(
    ['Started', 'Duration', 'Status', 'Response (first 4 KB)', 'Error', 'Kind'],
    delivery.attempts.map((attempt) =>
      h(
        'tr',
        { class: 'attempt' },
        h('td', {}, formatMillis(attempt.created)),
        h('td', { class: 'num' }, `${attempt.duration_ms} ms`),
        h('td', { class: 'num' }, attempt.response_status ?? '—'),
        h('td', {}, attempt.response_body === null ? '—' : h('pre', { class: 'excerpt' }, attempt.response_body)),
        h('td', {}, attempt.error ?? '—'),
        h('td', {}, attempt.manual ? 'manual' : 'scheduled'),
      ),
    ),
    { class: 'attempts-table' },
  );
}

/**
 * A panel for one delivery with its attempts, fetched fresh. Resolves to the panel, or to a line
 * saying why it could not be fetched.
 */
export async function deliveryPanel(id) {
  try {
    const delivery = await api('GET', `/v1/webhook_deliveries/${encodeURIComponent(id)}`);
    return h(
      'section',
      { class: 'delivery-detail', dataset: { id: delivery.id, status: delivery.status } },
      h(
        'h3',
        {},
        `Delivery ${delivery.id} to `,
        lookedUp(endpointById(delivery.endpoint), (endpoint) => endpoint.url, delivery.endpoint),
        ' ',
        badge(delivery.status),
      ),
      attemptsTable(delivery),
    );
  } catch (error) {
    return h('p', { class: 'error' }, describeError(error));
  }
}

/**
 * A paged table of the account's deliveries in the status `statusOf()` gives ('' for all), and
 * the panel where a row's Details show its attempts: the table (with its paging controls) and the panel.
 */
export function deliveriesTable({ statusOf, empty, className, view }) {
  const detail = h('div', { class: 'detail' });
  const rowView = {
    ...view,
    onDetails: async (delivery) => {
      const panel = await deliveryPanel(delivery.id);
      replaceChildren(detail, panel);
      bringIntoView(panel);
    },
  };
  const deliveries = pagedTable({
    headings: DELIVERY_HEADINGS,
    fetchPage: (cursor) =>
      api('GET', '/v1/webhook_deliveries', { query: { status: statusOf(), limit: PAGE_SIZE, ...cursor } }),
    row: (delivery) => deliveryRow(delivery, rowView),
    empty,
    view,
    className,
  });
  return { deliveries, detail };
}
