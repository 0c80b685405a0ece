/*
 * The place on a customer's page for the payment methods saved to the customer. The API does not
 * store payment methods yet, so there is nothing to read and the page shows no section; once it
 * does (GET /v1/customers/{id}/payment_methods), this module fetches and shows them, and
 * customer-view.js, which already calls it, needs no change.
 */

/** The "Saved payment methods" section of the customer's page, or null while there is none to show. */
export function savedPaymentMethodsSection(_customer, _view) {
  return null;
}
