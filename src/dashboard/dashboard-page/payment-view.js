/*
 * One payment intent's page (#payment/pi_…): what it is for and where it stands, who pays, what
 * can be done to it (capture, refund, cancel), its charges (GET /v1/charges?payment_intent=…),
 * and its timeline: every event about the intent, its charges and their refunds, oldest first,
 * each with the state its object was left in. After an action the page is read again, so it
 * shows the state and the events the action left.
 */
import { api, listAll } from './api.js';
import { customerLink } from './customers-view.js';
import { badge, formatSeconds, h, replaceChildren, table } from './dom.js';
import { formatAmount } from './money.js';
import { paymentActions } from './payment-actions.js';
import { timelineOf } from './timeline.js';

/** Fills `container` with the page of the intent `id`. */
export function showPaymentView(container, view, id) {
  const page = h('section', { class: 'payment-detail', dataset: { id } }, h('p', { class: 'loading' }, 'Loading…'));
  replaceChildren(container, h('p', {}, h('a', { class: 'back', href: '#payments' }, '← Payments')), page);
  fillPayment(page, view, id);
}

/** Reads the payment and shows it; `outcome` is what the action that led here did, said at the top. */
async function fillPayment(page, view, id, outcome) {
  const path = `/v1/payment_intents/${encodeURIComponent(id)}`;
  try {
    const [intent, charges, refunds] = await Promise.all([
      api('GET', path, { query: { expand: ['customer'] } }),
      listAll('/v1/charges', { payment_intent: id }),
      listAll('/v1/refunds', { payment_intent: id }),
    ]);
    const timeline = await timelineOf([intent.id, ...charges.data.map((c) => c.id), ...refunds.data.map((r) => r.id)]);
    if (view.signal.aborted) return;
    const latestCharge = charges.data.find((charge) => charge.id === intent.latest_charge);
    const actions = paymentActions(intent, latestCharge, {
      done: (said) => fillPayment(page, view, id, said),
      report: view.report,
    });
    replaceChildren(
      page,
      h('h2', {}, `Payment ${intent.id} `, badge(intent.status)),
      outcome && h('p', { class: 'action-outcome', role: 'status' }, outcome),
      summary(intent),
      actions,
      h('h3', {}, 'Charges'),
      charges.data.length === 0 ? h('p', { class: 'empty' }, 'No charge yet: the intent has not been confirmed.') : chargesTable(charges.data),
      h('h3', {}, 'Timeline'),
      timelineTable(timeline.events),
      !(timeline.complete && charges.complete && refunds.complete) &&
        h('p', { class: 'hint' }, 'This payment has more events than the page reads: the oldest are not shown.'),
    );
  } catch (error) {
    replaceChildren(page);
    view.report(error);
  }
}

/** The intent's fields a person looks for first, as a definition list. */
function summary(intent) {
  const money = (amount) => formatAmount(amount, intent.currency);
  const error = intent.last_payment_error;
  const fields = [
    ['Amount', money(intent.amount)],
    ['Status', badge(intent.status)],
    ['Capture method', intent.capture_method],
    ['Capturable', money(intent.amount_capturable)],
    ['Received', money(intent.amount_received)],
    ['Payment method', intent.payment_method ?? '—'],
    ['Customer', intent.customer === null ? '—' : customerLink(intent.customer)],
    ['Created', formatSeconds(intent.created)],
    intent.description !== null && ['Description', intent.description],
    intent.canceled_at !== null && ['Canceled', `${formatSeconds(intent.canceled_at)} (${intent.cancellation_reason ?? 'no reason given'})`],
    error !== null && ['Last payment error', `${error.code}: ${error.message}`],
  ].filter(Boolean);
  return h(
    'dl',
    { class: 'summary' },
    fields.flatMap(([term, value]) => [h('dt', {}, term), h('dd', { dataset: { field: term.toLowerCase() } }, value)]),
  );
}

function chargesTable(charges) {
  return table(
    ['Created', 'Charge', 'Amount', 'Status', 'Captured', 'Refunded', 'Card', 'Failure'],
    charges.map((charge) => {
      const money = (amount) => formatAmount(amount, charge.currency);
      const card = charge.payment_method_details.card;
      return h(
        'tr',
        { class: 'charge', dataset: { id: charge.id, status: charge.status } },
        h('td', {}, formatSeconds(charge.created)),
        h('td', { class: 'id' }, charge.id),
        h('td', { class: 'num' }, money(charge.amount)),
        h('td', {}, badge(charge.status)),
        h('td', { class: 'captured num' }, money(charge.amount_captured)),
        h('td', { class: 'refunded num' }, money(charge.amount_refunded)),
        h('td', {}, `${card.brand} ${card.last4}`),
        h('td', {}, charge.failure_message ?? '—'),
      );
    }),
    { class: 'charges' },
  );
}

/** One row per event, oldest first; an event's id opens to its payload. */
function timelineTable(events) {
  if (events.length === 0) return h('p', { class: 'empty' }, 'No events.');
  return table(
    ['Time', 'Event', 'Object', 'Left in', 'Event id'],
    events.map((event) => {
      const object = event.data.object;
      return h(
        'tr',
        { class: 'timeline-event', dataset: { id: event.id, type: event.type } },
        h('td', { class: 'time' }, formatSeconds(event.created)),
        h('td', { class: 'type' }, event.type),
        h('td', { class: 'object' }, `${object.object} ${object.id}`),
        h('td', { class: 'state' }, stateOf(object)),
        h(
          'td',
          { class: 'event-id' },
          h('details', {}, h('summary', {}, event.id), h('pre', { class: 'payload' }, JSON.stringify(event, null, 2))),
        ),
      );
    }),
    { class: 'timeline' },
  );
}

/** Where the event left its object: an intent's or a charge's status and amounts, a refund's amount. */
function stateOf(object) {
  const money = (amount) => formatAmount(amount, object.currency);
  if (object.object === 'payment_intent') {
    return [
      badge(object.status),
      object.amount_capturable > 0 && ` ${money(object.amount_capturable)} capturable`,
      object.amount_received > 0 && ` ${money(object.amount_received)} received`,
    ];
  }
  if (object.object === 'charge') {
    const authorised = object.status === 'succeeded' && !object.captured && object.amount_refunded < object.amount;
    return [
      badge(object.status),
      authorised && ` ${money(object.amount)} authorised`,
      object.amount_captured > 0 && ` ${money(object.amount_captured)} captured`,
      object.amount_refunded > 0 && ` ${money(object.amount_refunded)} refunded`,
    ];
  }
  if (object.object === 'refund') return `${money(object.amount)} refunded`;
  return '—';
}
