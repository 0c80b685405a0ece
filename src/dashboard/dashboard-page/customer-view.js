/*
 * One customer's page (#customer/cus_…): the customer's details (GET /v1/customers/{id}), their
 * payments (GET /v1/payment_intents?customer=…), newest first, and their saved payment methods.
 */
import { api } from './api.js';
import { customerName } from './customers-view.js';
import { savedPaymentMethodsSection } from './customer-payment-methods.js';
import { formatSeconds, h, replaceChildren } from './dom.js';
import { PAGE_SIZE, pagedTable } from './list-view.js';
import { PAYMENT_HEADINGS, paymentRow } from './payments-view.js';

/** Fills `container` with the page of the customer `id`. */
export function showCustomerView(container, view, id) {
  const page = h('section', { class: 'customer-detail', dataset: { id } }, h('p', { class: 'loading' }, 'Loading…'));
  replaceChildren(container, h('p', {}, h('a', { class: 'back', href: '#customers' }, '← Customers')), page);
  fillCustomer(page, view, id);
}

async function fillCustomer(page, view, id) {
  let customer;
  try {
    customer = await api('GET', `/v1/customers/${encodeURIComponent(id)}`);
  } catch (error) {
    replaceChildren(page);
    view.report(error);
    return;
  }
  if (view.signal.aborted) return;
  const payments = pagedTable({
    headings: PAYMENT_HEADINGS,
    fetchPage: (cursor) =>
      api('GET', '/v1/payment_intents', { query: { customer: customer.id, expand: ['data.customer'], limit: PAGE_SIZE, ...cursor } }),
    row: paymentRow,
    empty: 'No payments yet.',
    view,
    className: 'payments',
  });
  replaceChildren(
    page,
    h('h2', {}, customerName(customer)),
    details(customer),
    h('h3', {}, 'Payments'),
    payments.element,
    savedPaymentMethodsSection(customer, view),
  );
  payments.first();
}

function details(customer) {
  const metadata = Object.entries(customer.metadata);
  const fields = [
    ['Name', customer.name ?? '—'],
    ['E-mail', customer.email ?? '—'],
    ['Phone', customer.phone ?? '—'],
    ['Description', customer.description ?? '—'],
    ['Customer', customer.id],
    ['Created', formatSeconds(customer.created)],
    metadata.length > 0 && ['Metadata', metadata.map(([key, value]) => `${key}: ${value}`).join(', ')],
  ].filter(Boolean);
  return h(
    'dl',
    { class: 'summary' },
    fields.flatMap(([term, value]) => [h('dt', {}, term), h('dd', { dataset: { field: term.toLowerCase() } }, value)]),
  );
}
