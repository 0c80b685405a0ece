/*
 * Failed webhooks: deliveries whose retries ran out (GET /v1/webhook_deliveries?status=failed),
 * with how long that takes on this server's retry schedule, each with Retry, and per endpoint a bulk replay (POST /v1/webhook_endpoints/{id}/replay) that
 * always counts first with a dry run and sends only once confirmed.
 */
import { api } from './api.js';
import { deliveriesTable } from './deliveries.js';
import { badge, h, replaceChildren } from './dom.js';
import { retryScheduleNote } from './retry-schedule.js';

/** The most endpoints an account is shown with a replay button (one page of the API). */
const ENDPOINTS_SHOWN = 100;

/** Fills `container` with the failed-webhooks view. */
export function showFailedView(container, view) {
  const { deliveries, detail } = deliveriesTable({
    statusOf: () => 'failed',
    empty: 'No failed deliveries: every webhook has been delivered or is still being retried.',
    className: 'deliveries failed',
    view,
  });
  const range = rangeInputs();
  const endpoints = h('div', { class: 'endpoint-list' }, h('p', { class: 'loading' }, 'Loading…'));
  replaceChildren(
    container,
    h('h2', {}, 'Failed deliveries'),
    h('p', { class: 'hint' }, 'Deliveries whose every scheduled attempt failed. Retry sends one again now.'),
    retryScheduleNote(),
    deliveries.element,
    detail,
    h('h2', {}, 'Replay by endpoint'),
    h('p', { class: 'hint' }, 'Send every failed delivery of an endpoint again, optionally only those created in a time range.'),
    range.element,
    endpoints,
  );
  deliveries.first();
  showEndpoints(endpoints, range, view, () => deliveries.reload());
}

async function showEndpoints(holder, range, view, onReplayed) {
  try {
    const list = await api('GET', '/v1/webhook_endpoints', { query: { limit: ENDPOINTS_SHOWN } });
    if (view.signal.aborted) return;
    replaceChildren(
      holder,
      list.data.length === 0 && h('p', { class: 'empty' }, 'No webhook endpoints yet.'),
      list.data.map((endpoint) => endpointReplay(endpoint, range, view, onReplayed)),
      list.has_more && h('p', { class: 'hint' }, `Only the newest ${ENDPOINTS_SHOWN} endpoints are shown.`),
    );
  } catch (error) {
    view.report(error);
  }
}

/** The optional `created[gte]` / `created[lte]` bounds, as datetime inputs in the browser's time zone. */
function rangeInputs() {
  const from = h('input', { type: 'datetime-local', class: 'created-gte' });
  const to = h('input', { type: 'datetime-local', class: 'created-lte' });
  const seconds = (input) => (input.value ? Math.floor(new Date(input.value).getTime() / 1000) : undefined);
  return {
    element: h('p', { class: 'range' }, h('label', {}, 'Created from ', from), ' ', h('label', {}, 'to ', to)),
    /** The replay body's `created`, or undefined when neither bound is set. */
    created() {
      const created = { gte: seconds(from), lte: seconds(to) };
      return created.gte === undefined && created.lte === undefined ? undefined : created;
    },
  };
}

/** One endpoint with its replay button; the count from the dry run is confirmed before anything is sent. */
function endpointReplay(endpoint, range, view, onReplayed) {
  const outcome = h('span', { class: 'replay-outcome', 'aria-live': 'polite' });
  const start = h('button', { type: 'button', class: 'replay' }, 'Replay failed deliveries of this endpoint');
  const path = `/v1/webhook_endpoints/${encodeURIComponent(endpoint.id)}/replay`;

  start.addEventListener('click', async () => {
    // The range is read once, so what is sent is exactly what was counted.
    const created = range.created();
    start.disabled = true;
    try {
      const dryRun = await api('POST', path, { body: { dry_run: true, created } });
      if (dryRun.count === 0) {
        replaceChildren(outcome, 'No failed deliveries to replay.');
        start.disabled = false;
        return;
      }
      const confirm = h('button', { type: 'button', class: 'confirm-replay' }, `Send ${plural(dryRun.count)} again`);
      const cancel = h('button', { type: 'button', class: 'cancel-replay' }, 'Cancel');
      cancel.addEventListener('click', () => {
        replaceChildren(outcome);
        start.disabled = false;
      });
      confirm.addEventListener('click', async () => {
        confirm.disabled = cancel.disabled = true;
        try {
          const replay = await api('POST', path, { body: { created } });
          replaceChildren(outcome, `${plural(replay.count)} queued to be sent again.`);
          onReplayed();
        } catch (error) {
          view.report(error);
          replaceChildren(outcome);
        }
        start.disabled = false;
      });
      replaceChildren(outcome, `${plural(dryRun.count)} would be sent again. `, confirm, ' ', cancel);
    } catch (error) {
      view.report(error);
      start.disabled = false;
    }
  });
  return h(
    'div',
    { class: 'endpoint', dataset: { id: endpoint.id } },
    h('span', { class: 'url' }, endpoint.url),
    ' ',
    badge(endpoint.status),
    ' ',
    start,
    ' ',
    outcome,
  );
}

function plural(count) {
  return count === 1 ? '1 failed delivery' : `${count} failed deliveries`;
}
