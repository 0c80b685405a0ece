/*
 * Customers, newest first (GET /v1/customers), by name and e-mail, optionally only those with one
 * e-mail address (the API's `email` filter). Each links to its own page (#customer/cus_…).
 */
import { api } from './api.js';
import { formatSeconds, h, replaceChildren } from './dom.js';
import { PAGE_SIZE, pagedTable } from './list-view.js';

/** The fragment of a customer's page. */
export function customerHref(id) {
  return `#customer/${encodeURIComponent(id)}`;
}

/** How a person recognises a customer: the name, else the e-mail, else the id. */
export function customerName(customer) {
  return customer.name || customer.email || customer.id;
}

/**
 * A link to a customer's page, from an id or from the customer itself (an expanded `customer`
 * field): "Jenny Rosen <jenny@example.com>". A deleted customer has no page left to link to.
 */
export function customerLink(customer) {
  if (typeof customer === 'string') return h('a', { class: 'customer-link', href: customerHref(customer) }, customer);
  if (customer.deleted) return `${customer.id} (deleted)`;
  return h(
    'a',
    { class: 'customer-link', href: customerHref(customer.id), title: customer.id },
    customerName(customer),
    customer.email && customer.name && ` <${customer.email}>`,
  );
}

/** Fills `container` with the customers view. */
export function showCustomersView(container, view) {
  const email = h('input', { type: 'email', class: 'email-filter', placeholder: 'jenny@example.com', autocomplete: 'off' });
  const filter = h('form', { class: 'filters' }, h('label', {}, 'E-mail ', email), ' ', h('button', { type: 'submit' }, 'Find'));
  const customers = pagedTable({
    headings: ['Created', 'Name', 'E-mail', 'Customer', 'Description'],
    fetchPage: (cursor) => api('GET', '/v1/customers', { query: { email: email.value.trim(), limit: PAGE_SIZE, ...cursor } }),
    row: customerRow,
    empty: 'No customers.',
    view,
    className: 'customers',
  });
  filter.addEventListener('submit', (event) => {
    event.preventDefault();
    customers.first();
  });
  replaceChildren(container, h('h2', {}, 'Customers'), filter, customers.element);
  customers.first();
}

function customerRow(customer) {
  return h(
    'tr',
    { class: 'customer', dataset: { id: customer.id } },
    h('td', {}, formatSeconds(customer.created)),
    h('td', { class: 'name' }, h('a', { class: 'open-customer', href: customerHref(customer.id) }, customer.name || '(no name)')),
    h('td', { class: 'email' }, customer.email ?? '—'),
    h('td', { class: 'id' }, customer.id),
    h('td', {}, customer.description ?? ''),
  );
}
