/* global fetch */
/*
 * Events, newest first (GET /v1/events), filtered by type or by delivery outcome
 * (`delivery_success=false` is the failed-webhooks view of events), each with the state of its
 * webhook deliveries. Opening one shows its payload and every delivery with its attempts; an
 * event about a payment intent links to that payment's page.
 */
import { api, describeError } from './api.js';
import { customerHref } from './customers-view.js';
import { DELIVERY_HEADINGS, deliveryPanel, deliveryRow } from './deliveries.js';
import { bringIntoView, formatSeconds, h, replaceChildren, table } from './dom.js';
import { PAGE_SIZE, pagedTable } from './list-view.js';
import { paymentHref } from './payments-view.js';

/** An event has at most one delivery per endpoint; one page of them covers any real account. */
const DELIVERIES_PER_EVENT = 100;

/** Fills `container` with the events view. */
export function showEventsView(container, view) {
  const type = h('select', { class: 'type-filter' }, h('option', { value: '' }, 'All types'));
  const outcome = h(
    'select',
    { class: 'delivery-filter' },
    h('option', { value: '' }, 'Any delivery state'),
    h('option', { value: 'false' }, 'A delivery failed for good'),
    h('option', { value: 'true' }, 'Every delivery succeeded'),
  );
  const detail = h('div', { class: 'detail' });
  const events = pagedTable({
    headings: ['Created', 'Type', 'Event', 'Object', 'Webhooks'],
    fetchPage: (cursor) =>
      api('GET', '/v1/events', {
        query: { type: type.value, delivery_success: outcome.value, limit: PAGE_SIZE, ...cursor },
      }),
    row: (event) => eventRow(event, () => showEvent(detail, event, view)),
    empty: 'No events match.',
    view,
    className: 'events',
  });
  for (const filter of [type, outcome]) {
    filter.addEventListener('change', () => {
      replaceChildren(detail);
      events.first();
    });
  }
  replaceChildren(
    container,
    h('h2', {}, 'Events'),
    h('p', { class: 'filters' }, h('label', {}, 'Type ', type), ' ', h('label', {}, 'Webhooks ', outcome)),
    events.element,
    detail,
  );
  fillEventTypes(type);
  events.first();
}

function eventRow(event, open) {
  const object = event.data.object;
  return h(
    'tr',
    { class: 'event', dataset: { id: event.id } },
    h('td', {}, formatSeconds(event.created)),
    h('td', { class: 'type' }, event.type),
    h('td', {}, h('button', { type: 'button', class: 'open-event link', onclick: open }, event.id)),
    h('td', { class: 'object' }, objectCell(object)),
    h('td', { class: 'webhooks' }, deliveryState(event.id)),
  );
}

/** The event's object, as a link to its page when it has one (a payment intent, a customer). */
function objectCell(object) {
  const text = `${object.object} ${object.id}`;
  if (object.object === 'payment_intent') return h('a', { class: 'payment-link', href: paymentHref(object.id) }, text);
  // A deleted customer's page is gone; its event still shows what it was.
  if (object.object === 'customer' && !object.deleted) return h('a', { class: 'customer-link', href: customerHref(object.id) }, text);
  return text;
}

/** "2 succeeded · 1 failed", filled in once the event's deliveries are fetched. */
function deliveryState(eventId) {
  const span = h('span', {}, '…');
  deliveriesOf(eventId).then(
    (deliveries) => {
      const counts = new Map();
      for (const delivery of deliveries) counts.set(delivery.status, (counts.get(delivery.status) ?? 0) + 1);
      const parts = [...counts].map(([status, count]) => h('span', { class: `state-${status}` }, `${count} ${status}`));
      span.replaceChildren(...(parts.length === 0 ? ['none'] : parts.flatMap((part, i) => (i === 0 ? [part] : [' · ', part]))));
    },
    (error) => span.replaceChildren(describeError(error)),
  );
  return span;
}

async function deliveriesOf(eventId) {
  const list = await api('GET', '/v1/webhook_deliveries', { query: { event: eventId, limit: DELIVERIES_PER_EVENT } });
  return list.data;
}

/** The event's payload as its webhooks carry it, and each of its deliveries with Retry and attempts. */
async function showEvent(detail, event, view) {
  const panels = h('div', { class: 'delivery-panels' });
  const refreshPanel = async (delivery) => {
    const panel = await deliveryPanel(delivery.id);
    const shown = [...panels.children].find((element) => element.dataset.id === delivery.id);
    if (shown) shown.replaceWith(panel);
  };
  const section = h('section', { class: 'event-detail', dataset: { id: event.id } },
    h('h3', {}, `${event.type} ${event.id}`),
    h('p', { class: 'hint' }, `Caused by request ${event.request.id ?? '—'}`,
      event.request.idempotency_key && ` with Idempotency-Key ${event.request.idempotency_key}`),
    h('pre', { class: 'payload' }, JSON.stringify(event, null, 2)),
    h('h3', {}, 'Deliveries'),
    panels,
  );
  replaceChildren(detail, section);
  // The detail is below the list, out of sight after a click on one of its lower rows.
  bringIntoView(section);
  try {
    const deliveries = await deliveriesOf(event.id);
    if (deliveries.length === 0) {
      replaceChildren(panels, h('p', { class: 'empty' }, 'No webhook endpoint was subscribed to this event.'));
      return;
    }
    const rowView = { ...view, onChanged: refreshPanel };
    replaceChildren(
      panels,
      table(DELIVERY_HEADINGS, deliveries.map((delivery) => deliveryRow(delivery, rowView)), { class: 'deliveries' }),
      await Promise.all(deliveries.map((delivery) => deliveryPanel(delivery.id))),
    );
  } catch (error) {
    view.report(error);
  }
}

/** The event types the spec names, for the type filter (read from this server's /openapi.json). */
async function fillEventTypes(select) {
  try {
    const response = await fetch('/openapi.json');
    const spec = await response.json();
    for (const value of spec.components.schemas.EventType.enum) select.append(h('option', { value }, value));
  } catch {
    // Without the spec, the filter offers only "All types": the list itself still works.
  }
}
