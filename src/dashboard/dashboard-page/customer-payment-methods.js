/*
 * What a customer's page shows of their saved cards: the payment methods attached to them
 * (GET /v1/customers/{id}/payment_methods), the default one marked, and their setup intents
 * (GET /v1/setup_intents?customer=…) with each one's status and card (`expand[]=data.payment_method`).
 */
import { api } from './api.js';
import { badge, formatSeconds, h } from './dom.js';
import { PAGE_SIZE, pagedTable } from './list-view.js';

/** "Visa", "Mastercard", "American Express": the brand as a card shows it. */
const BRAND_NAMES = { amex: 'American Express', diners: 'Diners Club', jcb: 'JCB', unionpay: 'UnionPay' };

function brandName(brand) {
  return BRAND_NAMES[brand] ?? brand.charAt(0).toUpperCase() + brand.slice(1);
}

/** "Visa •••• 4242", or the id of a payment method that is not a card. */
export function cardLabel(method) {
  return method.card ? `${brandName(method.card.brand)} •••• ${method.card.last4}` : method.id;
}

/** "12/2034", as printed on the card. */
function expiry(card) {
  return `${String(card.exp_month).padStart(2, '0')}/${card.exp_year}`;
}

/**
 * The "Saved payment methods" and "Setup intents" sections of the customer's page; both start
 * loading at once, and report a failure (a key without the scope to read them) like any view.
 */
export function savedPaymentMethodsSection(customer, view) {
  const defaultId = customer.invoice_settings?.default_payment_method ?? null;
  const customerPath = `/v1/customers/${encodeURIComponent(customer.id)}`;
  const methods = pagedTable({
    headings: ['Payment method', 'Brand', 'Number', 'Expires', 'Default', 'Created'],
    fetchPage: (cursor) => api('GET', `${customerPath}/payment_methods`, { query: { limit: PAGE_SIZE, ...cursor } }),
    row: (method) => paymentMethodRow(method, method.id === defaultId),
    empty: 'No saved payment methods.',
    view,
    className: 'payment-methods',
  });
  const setups = pagedTable({
    headings: ['Created', 'Setup intent', 'Status', 'Card', 'Usage', 'Description'],
    fetchPage: (cursor) =>
      api('GET', '/v1/setup_intents', {
        query: { customer: customer.id, expand: ['data.payment_method'], limit: PAGE_SIZE, ...cursor },
      }),
    row: setupIntentRow,
    empty: 'No setup intents.',
    view,
    className: 'setup-intents',
  });
  methods.first();
  setups.first();
  return h(
    'div',
    { class: 'saved-cards' },
    h('h3', {}, 'Saved payment methods'),
    methods.element,
    h('h3', {}, 'Setup intents'),
    setups.element,
  );
}

function paymentMethodRow(method, isDefault) {
  const card = method.card;
  return h(
    'tr',
    { class: 'payment-method', dataset: { id: method.id, default: String(isDefault) } },
    h('td', { class: 'id' }, method.id),
    h('td', { class: 'brand' }, card ? brandName(card.brand) : method.type),
    h('td', { class: 'last4' }, card ? `•••• ${card.last4}` : '—'),
    h('td', { class: 'expiry' }, card ? expiry(card) : '—'),
    h('td', { class: 'default' }, isDefault ? badge('default') : ''),
    h('td', {}, formatSeconds(method.created)),
  );
}

function setupIntentRow(intent) {
  const method = intent.payment_method;
  return h(
    'tr',
    { class: 'setup-intent', dataset: { id: intent.id, status: intent.status } },
    h('td', {}, formatSeconds(intent.created)),
    h('td', { class: 'id' }, intent.id),
    h('td', { class: 'status' }, badge(intent.status)),
    h('td', { class: 'card' }, method === null ? '—' : typeof method === 'string' ? method : cardLabel(method)),
    h('td', { class: 'usage' }, intent.usage),
    h('td', {}, intent.description ?? ''),
  );
}
