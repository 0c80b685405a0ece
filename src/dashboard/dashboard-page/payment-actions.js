/*
 * What can be done to a payment from its page: capture all or part of an authorisation
 * (POST /v1/payment_intents/{id}/capture), refund all or part of what is left
 * (POST /v1/refunds with the intent), and cancel (POST /v1/payment_intents/{id}/cancel): the
 * operations an integration calls, so the API decides, and its refusals are shown as it words them.
 * Nothing is sent before a confirmation that says what will happen. Each confirmation carries an
 * Idempotency-Key of its own, so Confirm pressed twice, or again after an answer that was lost on
 * the way, performs the action once; changing the amount makes a new confirmation, with a new key.
 */
import { api, describeError, newIdempotencyKey } from './api.js';
import { h, replaceChildren } from './dom.js';
import { amountInput, formatAmount, parseAmount } from './money.js';

/** The spec's PaymentIntentCancelParams.cancellation_reason. */
const CANCELLATION_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent', 'abandoned'];

/** Statuses an intent may be canceled from (the API refuses `succeeded` and `canceled`). */
const CANCELABLE = ['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture', 'processing'];

/**
 * The actions the intent's status allows, or null when there is none. `charge` is the intent's
 * latest charge (the one a refund refunds), or undefined. `done(outcome)` is told a sentence once
 * an action succeeded (the page then shows the new state); `report(error)` gets a refused key.
 */
export function paymentActions(intent, charge, { done, report }) {
  const money = (amount) => formatAmount(amount, intent.currency);
  const actions = [];
  if (intent.status === 'requires_capture' && intent.amount_capturable > 0) {
    actions.push(captureAction(intent, money, { done, report }));
  }
  const refundable = charge && charge.status === 'succeeded' && charge.captured ? charge.amount - charge.amount_refunded : 0;
  if (intent.status === 'succeeded' && refundable > 0) actions.push(refundAction(intent, charge, refundable, money, { done, report }));
  if (CANCELABLE.includes(intent.status)) actions.push(cancelAction(intent, money, { done, report }));
  return actions.length === 0 ? null : h('section', { class: 'actions' }, h('h3', {}, 'Actions'), actions);
}

function captureAction(intent, money, callbacks) {
  const capturable = intent.amount_capturable;
  return amountAction({
    name: 'capture',
    label: `Amount to capture (${intent.currency.toUpperCase()})`,
    button: 'Capture…',
    initial: amountInput(capturable, intent.currency),
    currency: intent.currency,
    describe: (amount) => [
      `Capture ${money(amount)} of the ${money(capturable)} authorised.`,
      amount < capturable && ` The other ${money(capturable - amount)} are released to the customer.`,
      ' The payment becomes succeeded; what is captured can then be refunded, not captured again.',
    ],
    confirm: 'Confirm capture',
    send: (amount, idempotencyKey) =>
      api('POST', `/v1/payment_intents/${encodeURIComponent(intent.id)}/capture`, { body: { amount_to_capture: amount }, idempotencyKey }),
    outcome: (captured) => `Captured ${money(captured.amount_received)}.`,
    callbacks,
  });
}

function refundAction(intent, charge, refundable, money, callbacks) {
  const card = charge.payment_method_details?.card;
  return amountAction({
    name: 'refund',
    label: `Amount to refund (${intent.currency.toUpperCase()})`,
    button: 'Refund…',
    initial: amountInput(refundable, intent.currency),
    currency: intent.currency,
    describe: (amount) => [
      `Refund ${money(amount)} of the ${money(refundable)} not yet refunded`,
      card ? ` to the ${card.brand} card ending ${card.last4}.` : '.',
      amount < refundable ? ` ${money(refundable - amount)} will be left to refund.` : ' Nothing will be left to refund.',
    ],
    confirm: 'Confirm refund',
    send: (amount, idempotencyKey) => api('POST', '/v1/refunds', { body: { payment_intent: intent.id, amount }, idempotencyKey }),
    outcome: (refund) => `Refunded ${money(refund.amount)}.`,
    callbacks,
  });
}

function cancelAction(intent, money, callbacks) {
  const reason = h(
    'select',
    { class: 'cancellation-reason' },
    h('option', { value: '' }, 'No reason given'),
    CANCELLATION_REASONS.map((value) => h('option', { value }, value)),
  );
  const form = actionForm('cancel', [h('label', {}, 'Reason ', reason)], 'Cancel payment…');
  const held = intent.amount_capturable;
  reason.addEventListener('change', () => replaceChildren(form.step));
  form.element.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = reason.value === '' ? {} : { cancellation_reason: reason.value };
    showConfirmation(form, {
      text: [
        'Cancel this payment',
        held > 0 ? `, releasing the ${money(held)} authorised to the customer.` : '.',
        ' It can then be neither confirmed nor captured.',
      ],
      confirm: 'Confirm cancellation',
      send: (idempotencyKey) => api('POST', `/v1/payment_intents/${encodeURIComponent(intent.id)}/cancel`, { body, idempotencyKey }),
      outcome: () => 'Canceled the payment.',
      callbacks,
    });
  });
  return form.element;
}

/** An action that takes an amount, typed in the currency's units and prefilled with all there is. */
function amountAction({ name, label, button, initial, currency, describe, confirm, send, outcome, callbacks }) {
  const input = h('input', { class: 'amount', type: 'text', inputmode: 'decimal', value: initial, size: 12, autocomplete: 'off' });
  const form = actionForm(name, [h('label', {}, `${label} `, input)], button);
  form.element.addEventListener('submit', (event) => {
    event.preventDefault();
    const amount = parseAmount(input.value, currency);
    if (amount === undefined || amount === 0) {
      replaceChildren(form.step, h('p', { class: 'action-error', role: 'alert' }, `Enter an amount in ${currency.toUpperCase()}, like ${initial}.`));
      return;
    }
    showConfirmation(form, {
      text: describe(amount),
      confirm,
      send: (idempotencyKey) => send(amount, idempotencyKey),
      outcome,
      callbacks,
    });
  });
  // What was confirmed is what is sent: an edit afterwards withdraws the confirmation.
  input.addEventListener('input', () => replaceChildren(form.step));
  return form.element;
}

/** A form with its fields and a button that asks for the confirmation, shown in `step` below them. */
function actionForm(name, fields, button) {
  const step = h('div', { class: 'step', 'aria-live': 'polite' });
  const element = h(
    'form',
    { class: `action action-${name}`, autocomplete: 'off' },
    h('p', { class: 'fields' }, fields, ' ', h('button', { type: 'submit', class: `start-${name}` }, button)),
    step,
  );
  return { element, step };
}

/**
 * What will happen, with Confirm and Back. The key is made here, once: every press of this
 * Confirm sends the same request with the same key, so the API performs it at most once.
 */
function showConfirmation(form, { text, confirm: confirmLabel, send, outcome, callbacks }) {
  const idempotencyKey = newIdempotencyKey();
  const confirm = h('button', { type: 'button', class: 'confirm' }, confirmLabel);
  const back = h('button', { type: 'button', class: 'back-out' }, 'Back');
  const error = h('p', { class: 'action-error', role: 'alert', hidden: true });
  confirm.addEventListener('click', async () => {
    // Disabled at once, so the second click of a double click finds nothing to press.
    confirm.disabled = back.disabled = true;
    error.hidden = true;
    try {
      const result = await send(idempotencyKey);
      callbacks.done(outcome(result));
    } catch (failure) {
      if (failure.status === 401) {
        callbacks.report(failure);
        return;
      }
      // The API's own words; pressing again resends the same request under the same key.
      error.textContent = describeError(failure);
      error.hidden = false;
      confirm.textContent = 'Try again';
      confirm.disabled = back.disabled = false;
    }
  });
  back.addEventListener('click', () => replaceChildren(form.step));
  replaceChildren(
    form.step,
    h('div', { class: 'confirmation', dataset: { idempotencyKey } }, h('p', { class: 'what-happens' }, text), error, h('p', {}, confirm, ' ', back)),
  );
  confirm.focus();
}
