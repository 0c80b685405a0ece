/* global window, document, AbortController */
/*
 * The dashboard at GET /dashboard: asks for an API key, then shows the view the URL's fragment
 * names (#failed, #deliveries, #events, #payments, #customers, or one payment's or customer's page,
 * #payment/pi_…, #customer/cus_…), so that back and forward and bookmarks work.
 * A file of its own rather than an inline script: the page runs under helmet's CSP (script-src 'self').
 */
import { ApiError, describeError, forgetKey, storedKey, storeKey } from './api.js';
import { showDeliveriesView } from './deliveries-view.js';
import { showEventsView } from './events-view.js';
import { showFailedView } from './failed-view.js';
import { showCustomerView } from './customer-view.js';
import { showCustomersView } from './customers-view.js';
import { clearLookups } from './lookups.js';
import { showPaymentView } from './payment-view.js';
import { showPaymentsView } from './payments-view.js';

/** Each view, and the tab it is shown under; a view with a parameter is `#name/parameter`. */
const VIEWS = {
  failed: { show: showFailedView, tab: 'failed' },
  deliveries: { show: showDeliveriesView, tab: 'deliveries' },
  events: { show: showEventsView, tab: 'events' },
  payments: { show: showPaymentsView, tab: 'payments' },
  payment: { show: showPaymentView, tab: 'payments', parameter: true },
  customers: { show: showCustomersView, tab: 'customers' },
  customer: { show: showCustomerView, tab: 'customers', parameter: true },
};
const DEFAULT_VIEW = 'failed';

const elements = {
  keyForm: document.getElementById('key-form'),
  keyInput: document.getElementById('key-input'),
  keyStatus: document.getElementById('key-status'),
  keyLabel: document.getElementById('key-label'),
  forgetKey: document.getElementById('forget-key'),
  tabs: document.getElementById('tabs'),
  message: document.getElementById('message'),
  view: document.getElementById('view'),
};

/** Aborts the open view's work (a retry being watched, a page being fetched) when another opens. */
let openView;

function showMessage(text) {
  elements.message.textContent = text;
  elements.message.hidden = false;
}

function clearMessage() {
  elements.message.textContent = '';
  elements.message.hidden = true;
}

/** `sk_test_…` and the key's last four characters: enough to tell keys apart, not to use one. */
function maskKey(key) {
  return `${key.slice(0, key.indexOf('_', 3) + 1)}…${key.slice(-4)}`;
}

/** The view the fragment names, with its parameter (decoded); the default view for anything else. */
function currentRoute() {
  const fragment = window.location.hash.slice(1);
  const slash = fragment.indexOf('/');
  const name = slash === -1 ? fragment : fragment.slice(0, slash);
  const parameter = slash === -1 ? '' : decodeParameter(fragment.slice(slash + 1));
  const view = Object.hasOwn(VIEWS, name) ? VIEWS[name] : undefined;
  if (!view || (view.parameter === true) !== (parameter !== '')) return { view: VIEWS[DEFAULT_VIEW], parameter: '' };
  return { view, parameter };
}

function decodeParameter(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    // Not valid percent-encoding: shown as typed, for the API to refuse.
    return text;
  }
}

/** Shows the key prompt or the view the fragment names, closing the view shown before. */
function render() {
  if (openView) openView.abort();
  openView = undefined;
  clearMessage();
  elements.view.replaceChildren();
  const key = storedKey();
  elements.keyForm.hidden = key !== null;
  elements.tabs.hidden = elements.keyStatus.hidden = key === null;
  if (key === null) {
    elements.keyInput.focus();
    return;
  }
  elements.keyLabel.textContent = `Using key ${maskKey(key)}`;
  const { view, parameter } = currentRoute();
  for (const tab of elements.tabs.querySelectorAll('a')) {
    if (tab.dataset.view === view.tab) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  const controller = new AbortController();
  openView = controller;
  view.show(elements.view, { signal: controller.signal, report: (error) => report(error, controller.signal) }, parameter);
}

/** Shows a failure; a refused key is forgotten and asked for again, with the API's reason. */
function report(error, signal) {
  if (signal.aborted) return;
  if (error instanceof ApiError && error.status === 401) {
    forgetKey();
    render();
    showMessage(`The API key was refused: ${describeError(error)}`);
    return;
  }
  showMessage(describeError(error));
}

elements.keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = elements.keyInput.value.trim();
  if (key === '') return;
  elements.keyInput.value = '';
  storeKey(key);
  clearLookups();
  render();
});

elements.forgetKey.addEventListener('click', () => {
  forgetKey();
  clearLookups();
  render();
});

window.addEventListener('hashchange', render);

// The page is ready: the key form may be used now (index.html keeps it disabled until then).
elements.keyForm.querySelector('fieldset').disabled = false;
render();
