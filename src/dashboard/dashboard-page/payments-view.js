/*
 * Payments: the account's payment intents, newest first (GET /v1/payment_intents), filtered by
 * status, with their customers by name and e-mail (`expand[]=data.customer`). Each links to its
 * own page (#payment/pi_…), which shows its charges and its timeline.
 */
import { api } from './api.js';
import { customerLink } from './customers-view.js';
import { badge, formatSeconds, h, replaceChildren } from './dom.js';
import { PAGE_SIZE, pagedTable } from './list-view.js';
import { formatAmount } from './money.js';

/** The spec's PaymentIntentStatus, in the order an intent moves through them. */
const STATUSES = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
  'succeeded',
  'canceled',
];

/** The fragment of an intent's page: a link a person can keep or share. */
export function paymentHref(id) {
  return `#payment/${encodeURIComponent(id)}`;
}

/** Fills `container` with the payments view. */
export function showPaymentsView(container, view) {
  const status = h(
    'select',
    { class: 'status-filter' },
    h('option', { value: '' }, 'All statuses'),
    STATUSES.map((value) => h('option', { value }, value)),
  );
  const payments = pagedTable({
    headings: PAYMENT_HEADINGS,
    fetchPage: (cursor) =>
      api('GET', '/v1/payment_intents', { query: { status: status.value, expand: ['data.customer'], limit: PAGE_SIZE, ...cursor } }),
    row: paymentRow,
    empty: 'No payments.',
    view,
    className: 'payments',
  });
  status.addEventListener('change', () => payments.first());
  replaceChildren(
    container,
    h('h2', {}, 'Payments'),
    h('p', { class: 'filters' }, h('label', {}, 'Status ', status)),
    payments.element,
  );
  payments.first();
}

/** The headings that go with paymentRow(). */
export const PAYMENT_HEADINGS = ['Created', 'Payment', 'Amount', 'Status', 'Capture', 'Customer', 'Description'];

/** A row for one intent listed with `expand[]=data.customer`. */
export function paymentRow(intent) {
  return h(
    'tr',
    { class: 'payment', dataset: { id: intent.id, status: intent.status } },
    h('td', {}, formatSeconds(intent.created)),
    h('td', {}, h('a', { class: 'open-payment', href: paymentHref(intent.id) }, intent.id)),
    h('td', { class: 'amount num' }, formatAmount(intent.amount, intent.currency)),
    h('td', { class: 'status' }, badge(intent.status)),
    h('td', {}, intent.capture_method),
    h('td', { class: 'customer' }, intent.customer === null ? '—' : customerLink(intent.customer)),
    h('td', {}, intent.description ?? ''),
  );
}
