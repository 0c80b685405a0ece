/*
 * Every webhook delivery of the account, newest first, filtered by status
 * (GET /v1/webhook_deliveries?status=…), each with Retry and its attempts on request.
 */
import { api } from './api.js';
import { DELIVERY_HEADINGS, deliveryPanel, deliveryRow } from './deliveries.js';
import { h, replaceChildren } from './dom.js';
import { PAGE_SIZE, pagedTable } from './list-view.js';

const STATUSES = ['pending', 'succeeded', 'failed'];

/** Fills `container` with the deliveries view. */
export function showDeliveriesView(container, view) {
  const status = h(
    'select',
    { class: 'status-filter' },
    h('option', { value: '' }, 'All statuses'),
    STATUSES.map((value) => h('option', { value }, value)),
  );
  const detail = h('div', { class: 'detail' });
  const rowView = {
    ...view,
    onDetails: async (delivery) => replaceChildren(detail, await deliveryPanel(delivery.id)),
  };
  const deliveries = pagedTable({
    headings: DELIVERY_HEADINGS,
    fetchPage: (cursor) =>
      api('GET', '/v1/webhook_deliveries', { query: { status: status.value, limit: PAGE_SIZE, ...cursor } }),
    row: (delivery) => deliveryRow(delivery, rowView),
    empty: 'No deliveries.',
    view,
    className: 'deliveries',
  });
  status.addEventListener('change', () => {
    replaceChildren(detail);
    deliveries.first();
  });
  replaceChildren(
    container,
    h('h2', {}, 'Deliveries'),
    h('p', { class: 'filters' }, h('label', {}, 'Status ', status)),
    deliveries.element,
    detail,
  );
  deliveries.first();
}
