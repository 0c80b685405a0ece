import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { expect } from 'chai';
import { expectTypeOf } from 'expect-type';
import {
  createClient,
  PaymentsApiError,
  PaymentsAuthenticationError,
  PaymentsCardError,
  PaymentsError,
  PaymentsIdempotencyError,
  PaymentsInvalidRequestError,
  PaymentsPermissionError,
  PaymentsRateLimitError,
  unwrap,
  type Charge,
  type DeclineCode,
  type PaymentIntent,
  type PaymentsErrorObject,
} from '../../sdk/src/index.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { useTestServer } from '../helpers/test-server.js';
import { createTypeScriptProject, REPO_DIR } from './typescript-project.js';

/**
 * The SDK's errors as a consumer meets them: each status's error is precise (a 402's decline is
 * not optional), any error narrows by `type` then `code` in a `switch`, and `unwrap` throws the
 * `PaymentsError` subclass of its type for `instanceof`. Each `@ts-expect-error` line must not
 * compile; the last test runs tsc on this file, so a loosened type fails it.
 */

/** What a consumer writes: an exhaustive switch over any error, reading the fields each kind has. */
function describeError(error: PaymentsErrorObject): string {
  switch (error.type) {
    case 'card_error':
      if ('setup_intent' in error) return `declined (${error.decline_code}), setup intent ${error.setup_intent.status}`;
      return `declined (${error.decline_code}), charge ${error.charge}, intent ${error.payment_intent.status}`;
    case 'invalid_request_error':
      if (error.code === 'payment_intent_unexpected_state') return `intent is ${error.payment_intent.status}`;
      if (error.code === 'setup_intent_unexpected_state') return `setup intent is ${error.setup_intent.status}`;
      // @ts-expect-error: only a card error has a decline code
      void error.decline_code;
      return `invalid: ${error.code} ${error.param ?? ''}`;
    case 'authentication_error':
    case 'permission_error':
    case 'idempotency_error':
    case 'rate_limit_error':
    case 'api_error':
      return `${error.type}: ${error.code}`;
    default: {
      const unhandled: never = error;
      return unhandled;
    }
  }
}

forEachDatabase('SDK errors against a live server', (engine) => {
  const server = useTestServer(engine, {}, { per: 'suite' });

  it('types a 402 with its decline, charge and intent required, and other statuses with their own kinds', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const res = await payments.createCharge({ amount: 500, currency: 'usd', source: 'tok_chargeDeclinedInsufficientFunds' });
    // @ts-expect-error: before narrowing by status, the error may be one without a decline code
    void res.data.error.decline_code;
    if (res.status === 402) {
      expectTypeOf(res.data.error.decline_code).toEqualTypeOf<DeclineCode>();
      expectTypeOf(res.data.error.charge).toEqualTypeOf<string>();
      expectTypeOf(res.data.error.payment_intent).toEqualTypeOf<PaymentIntent>();
      expect(describeError(res.data.error)).to.match(/^declined \(insufficient_funds\), charge ch_\w+, intent requires_payment_method$/);
    }
    if (res.status === 401) expectTypeOf(res.data.error.type).toEqualTypeOf<'authentication_error'>();
    if (res.status === 403) expectTypeOf(res.data.error.code).toEqualTypeOf<'insufficient_scope'>();
    if (res.status === 404) expectTypeOf(res.data.error.code).toEqualTypeOf<'resource_missing' | 'url_not_found'>();
    expect(res.status).to.equal(402);
  });

  it('narrows a refused transition to the intent it carries', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const intent = await unwrap(payments.createPaymentIntent({ amount: 1000, currency: 'usd' }));
    const res = await payments.capturePaymentIntent(intent.id, {});
    expect(res.status).to.equal(400);
    if (res.status !== 400) return;
    expect(describeError(res.data.error)).to.equal('intent is requires_payment_method');
  });

  it('unwraps a success to its object and throws each error as the subclass of its type', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url, maxRetries: 0 });
    const charge = await unwrap(payments.createCharge({ amount: 2000, currency: 'usd', source: 'tok_visa' }));
    expectTypeOf(charge).toEqualTypeOf<Charge>();
    expect(charge).to.include({ object: 'charge', amount: 2000, status: 'succeeded' });

    const declined = await unwrap(payments.createCharge({ amount: 500, currency: 'usd', source: 'tok_chargeDeclined' })).catch((e: unknown) => e);
    expect(declined).to.be.instanceOf(PaymentsCardError).and.instanceOf(PaymentsError).and.instanceOf(Error);
    if (!(declined instanceof PaymentsCardError)) return;
    expectTypeOf(declined.declineCode).toEqualTypeOf<DeclineCode>();
    expect(declined).to.include({ status: 402, type: 'card_error', code: 'card_declined', declineCode: 'generic_decline', name: 'PaymentsCardError' });
    expect(declined.paymentIntent?.status).to.equal('requires_payment_method');
    expect(declined.setupIntent).to.equal(undefined);
    // The failed charge is recorded, under the id the error names.
    const failed = await unwrap(payments.retrieveCharge(declined.charge!));
    expect(failed).to.include({ status: 'failed', failure_code: 'card_declined' });

    const missing = await unwrap(payments.retrieveCharge('ch_doesnotexist')).catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(PaymentsInvalidRequestError);
    expect(missing).to.include({ status: 404, code: 'resource_missing', param: 'id' });
    expect((missing as PaymentsError).requestId).to.match(/^req_/);

    const invalid = await unwrap(payments.createCharge({ amount: -1, currency: 'usd', source: 'tok_visa' })).catch((e: unknown) => e);
    expect(invalid).to.be.instanceOf(PaymentsInvalidRequestError).and.include({ status: 400, code: 'parameter_invalid', param: 'amount' });

    const anonymous = createClient({ apiKey: 'sk_test_not_a_key', baseUrl: server.url, maxRetries: 0 });
    const refused = await unwrap(anonymous.listCharges()).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(PaymentsAuthenticationError).and.include({ status: 401, code: 'api_key_invalid' });
  });

  it('throws the scope a restricted key lacks as a permission error', async () => {
    const payments = createClient({ apiKey: server.api.apiKey!, baseUrl: server.url });
    const key = await unwrap(payments.createApiKey({ scopes: ['charges:read'] }));
    const restricted = createClient({ apiKey: key.secret, baseUrl: server.url, maxRetries: 0 });
    const refused = await unwrap(restricted.createCustomer({ email: 'jenny@example.com' })).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(PaymentsPermissionError).and.include({ status: 403, code: 'insufficient_scope' });
  });
});

describe('PaymentsError.from', () => {
  const envelope = (type: string, code: string) => ({ error: { type, code, message: 'm', request_id: 'req_1' } });

  it('picks the subclass of the error type, and the base class for a body that is not the envelope', () => {
    expect(PaymentsError.from(409, envelope('idempotency_error', 'idempotency_key_in_use'))).to.be.instanceOf(PaymentsIdempotencyError);
    expect(PaymentsError.from(429, envelope('rate_limit_error', 'rate_limited'))).to.be.instanceOf(PaymentsRateLimitError);
    expect(PaymentsError.from(500, envelope('api_error', 'internal_error'))).to.be.instanceOf(PaymentsApiError);
    expect(PaymentsError.from(503, envelope('api_error', 'service_unavailable'))).to.be.instanceOf(PaymentsApiError);
    // A proxy's page, or a type this SDK does not know: still a PaymentsError, with the status.
    for (const body of ['<html>Bad gateway</html>', undefined, envelope('future_error', 'x')]) {
      const error = PaymentsError.from(502, body);
      expect(error.constructor).to.equal(PaymentsError);
      expect(error).to.include({ status: 502, message: 'Request failed with status 502', type: undefined, error: undefined });
    }
  });
});

describe('the SDK error types, as a consumer compiles them', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(60_000);

  it('holds at compile time: tsc finds nothing to report in this file', async () => {
    const project = createTypeScriptProject(
      {
        'tsconfig.json': JSON.stringify({ extends: path.join(REPO_DIR, 'tsconfig.json'), files: [fileURLToPath(import.meta.url)], include: [] }),
      },
      { linkDependencies: true },
    );
    try {
      expect(await project.typecheck()).to.equal('');
    } finally {
      project.remove();
    }
  });
});
