/*
 * Every webhook delivery of the account, newest first, filtered by status
 * (GET /v1/webhook_deliveries?status=…), each with Retry and its attempts on request.
 */
import { deliveriesTable } from './deliveries.js';
import { h, replaceChildren } from './dom.js';

const STATUSES = ['pending', 'succeeded', 'failed'];

/** Fills `container` with the deliveries view. */
export function showDeliveriesView(container, view) {
  const status = h(
    'select',
    { class: 'status-filter' },
    h('option', { value: '' }, 'All statuses'),
    STATUSES.map((value) => h('option', { value }, value)),
  );
  const { deliveries, detail } = deliveriesTable({
    statusOf: () => status.value,
    empty: 'No deliveries.',
    className: 'deliveries',
    view,
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
