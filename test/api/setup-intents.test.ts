import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { useTestServer, type TestServer } from '../helpers/test-server.js';

const run = promisify(execFile);

/** Debian's python3 with its `python3-stripe` package (not a pyenv or venv interpreter on PATH). */
const DEBIAN_PYTHON = '/usr/bin/python3';

/**
 * An integrator's script with the widely used payments API's Python library, unmodified, pointed
 * at this server: save a card with no payment, charge it off-session later, and a declined setup.
 */
const PYTHON_SAVE_A_CARD = `
import json, sys, stripe
stripe.api_key, stripe.api_base = sys.argv[1], sys.argv[2]
stripe.max_network_retries = 0
customer = stripe.Customer.create(email="jenny@example.com")
setup = stripe.SetupIntent.create(customer=customer.id, payment_method="pm_card_visa", confirm=True)
paid = stripe.PaymentIntent.create(amount=2000, currency="usd", customer=customer.id,
                                   payment_method=setup.payment_method, off_session=True, confirm=True)
saved = stripe.PaymentMethod.list(customer=customer.id, type="card")
try:
    stripe.SetupIntent.create(payment_method="pm_card_chargeDeclined", confirm=True)
    declined = None
except stripe.error.CardError as error:
    declined = {"status": error.http_status, "code": error.code,
                "setup_intent": error.error.setup_intent["status"]}
print(json.dumps({"customer": customer.id, "setup": setup.status, "payment_method": setup.payment_method,
                  "paid": paid.status, "saved": [pm.id for pm in saved.data], "declined": declined}))
`;

const RETURN_URL = 'https://shop.example.com/account/cards?step=2';

function ok(res: ApiResponse): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** The types of the account's events about this object, oldest first. */
async function eventTypesOf(api: ApiClient, id: string): Promise<string[]> {
  const events = ok(await api.get(`/v1/events?object_id=${id}&limit=100`)).data;
  return events.map((event: any) => event.type).reverse();
}

/** The account's publishable key, as the list of its keys shows it. */
async function publishableClient(server: TestServer): Promise<ApiClient> {
  const keys = ok(await server.api.get('/v1/api_keys?limit=100')).data;
  return new ApiClient(server.url, keys.find((key: any) => key.type === 'publishable').key);
}

/** Posts the authentication page's form as a browser would, without following the redirect. */
function answerPage(
  server: TestServer,
  setupIntent: any,
  outcome: 'succeeded' | 'failed',
): Promise<Response> {
  const url = new URL(setupIntent.next_action.redirect_to_url.url);
  return fetch(new URL(url.pathname, url), {
    method: 'POST',
    body: new URLSearchParams({ client_secret: url.searchParams.get('client_secret')!, outcome }),
    redirect: 'manual',
  });
}

/** An off-session payment of 20.00 USD with the customer's saved card. */
function chargeOffSession(api: ApiClient, customer: string, paymentMethod: string) {
  return api.post('/v1/payment_intents', {
    amount: 2000,
    currency: 'usd',
    customer,
    payment_method: paymentMethod,
    off_session: true,
    confirm: true,
  });
}

/** A setup intent for a new customer, confirmed at once with `paymentMethod` (and `more`). */
async function aConfirmedSetup(
  api: ApiClient,
  paymentMethod: string,
  more: Record<string, unknown> = {},
) {
  const customer = await aCustomer(api);
  const res = await api.post('/v1/setup_intents', {
    customer: customer.id,
    payment_method: paymentMethod,
    confirm: true,
    ...more,
  });
  return { customer, res };
}

const DECLINES: Array<[testName: string, declineCode: string]> = [
  ['pm_card_chargeDeclined', 'generic_decline'],
  ['pm_card_chargeDeclinedInsufficientFunds', 'insufficient_funds'],
  ['pm_card_chargeDeclinedLostCard', 'lost_card'],
  ['pm_card_chargeDeclinedExpiredCard', 'expired_card'],
  ['pm_card_chargeDeclinedIncorrectCvc', 'incorrect_cvc'],
];

forEachDatabase('setup intents', (engine) => {
  // Every test reads only what its accounts made, so one server serves the file.
  const server = useTestServer(engine, {}, { per: 'account' });

  describe('create', () => {
    it('starts in requires_payment_method with every field of the payments API, and records setup_intent.created', async () => {
      const customer = await aCustomer(server.api);
      const created = ok(
        await server.api.post('/v1/setup_intents', {
          customer: customer.id,
          metadata: { plan: 'monthly' },
        }),
      );
      expect(created.id).to.match(/^seti_[0-9A-Za-z]{24}$/);
      expect(created.client_secret).to.match(new RegExp(`^${created.id}_secret_[0-9A-Za-z]{24}$`));
      const { id: _id, client_secret: _secret, created: when, ...rest } = created;
      expect(when).to.be.a('number');
      expect(rest).to.deep.equal({
        object: 'setup_intent',
        allowed_payment_method_types: null,
        application: null,
        automatic_payment_methods: { allow_redirects: 'always', enabled: true },
        cancellation_reason: null,
        customer: customer.id,
        description: null,
        excluded_payment_method_types: null,
        flow_directions: null,
        last_setup_error: null,
        latest_attempt: null,
        livemode: false,
        mandate: null,
        metadata: { plan: 'monthly' },
        next_action: null,
        on_behalf_of: null,
        payment_method: null,
        payment_method_configuration_details: null,
        payment_method_options: {
          card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' },
        },
        payment_method_types: ['card'],
        single_use_mandate: null,
        status: 'requires_payment_method',
        usage: 'off_session',
      });
      expect(await eventTypesOf(server.api, created.id)).to.deep.equal(['setup_intent.created']);
      const [row] = await server.db.all<{ client_secret: string }>(
        'SELECT client_secret FROM setup_intents WHERE id = ?',
        [created.id],
      );
      expect(row.client_secret).to.match(/^sealed\.v1\./);
    });

    it('takes no body at all, and a form body as the payments SDKs send it', async () => {
      const bare = await server.api.request('POST', '/v1/setup_intents', undefined);
      expect(ok(bare)).to.include({
        status: 'requires_payment_method',
        usage: 'off_session',
        customer: null,
      });
      const form = ok(
        await server.api.post(
          '/v1/setup_intents',
          { usage: 'on_session', payment_method_types: ['card'], description: 'Box' },
          { form: true },
        ),
      );
      expect(form).to.include({
        usage: 'on_session',
        automatic_payment_methods: null,
        description: 'Box',
      });
      expect(form.payment_method_types).to.deep.equal(['card']);
    });

    it('with a payment method waits for confirmation, the test name answered as a new pm_ id', async () => {
      const created = ok(
        await server.api.post('/v1/setup_intents', { payment_method: 'pm_card_visa' }),
      );
      expect(created.status).to.equal('requires_confirmation');
      expect(created.payment_method).to.match(/^pm_[0-9A-Za-z]{24}$/);
      expect(
        ok(await server.api.get(`/v1/payment_methods/${created.payment_method}`)).card.last4,
      ).to.equal('4242');
    });

    it('refuses bad input with 400 naming the parameter, and makes nothing', async () => {
      const cases: Array<[body: Record<string, unknown>, code: string, param: string]> = [
        [{ usage: 'sometimes' }, 'parameter_invalid', 'usage'],
        [{ payment_method_types: ['sepa_debit'] }, 'parameter_invalid', 'payment_method_types[0]'],
        [
          { payment_method_types: ['card'], automatic_payment_methods: { enabled: true } },
          'parameter_invalid',
          'automatic_payment_methods',
        ],
        [{ confirm: true }, 'parameter_missing', 'payment_method'],
        [{ return_url: 'javascript:alert(1)' }, 'parameter_invalid', 'return_url'],
        [{ payment_method: 'pm_card_nonesuch' }, 'parameter_invalid', 'payment_method'],
        [{ amount: 2000 }, 'parameter_unknown', 'amount'],
        [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'parameter_invalid', 'metadata'],
      ];
      for (const [body, code, param] of cases)
        expectError(await server.api.post('/v1/setup_intents', body), 400, code, param);
      expectError(
        await server.api.post('/v1/setup_intents', { customer: 'cus_nonesuch' }),
        404,
        'resource_missing',
        'customer',
      );
      expect(ok(await server.api.get('/v1/setup_intents')).data).to.deep.equal([]);
    });

    it('replays the same Idempotency-Key: one setup intent, one event; another body with it is refused', async () => {
      const body = { payment_method: 'pm_card_visa', confirm: true };
      const first = ok(
        await server.api.post('/v1/setup_intents', body, { idempotencyKey: 'seti-1' }),
      );
      const again = await server.api.post('/v1/setup_intents', body, { idempotencyKey: 'seti-1' });
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(ok(again)).to.deep.equal(first);
      expect(ok(await server.api.get('/v1/setup_intents')).data).to.have.length(1);
      expect(await eventTypesOf(server.api, first.id)).to.deep.equal([
        'setup_intent.created',
        'setup_intent.succeeded',
      ]);
      expectError(
        await server.api.post(
          '/v1/setup_intents',
          { usage: 'on_session' },
          { idempotencyKey: 'seti-1' },
        ),
        400,
        'idempotency_key_reused',
      );
    });
  });

  describe('confirm', () => {
    it('requires_confirmation → succeeded: the card is attached to the customer and ready to pay off-session', async () => {
      const customer = await aCustomer(server.api);
      const created = ok(
        await server.api.post('/v1/setup_intents', {
          customer: customer.id,
          payment_method: 'pm_card_visa',
        }),
      );
      const confirmed = ok(await server.api.post(`/v1/setup_intents/${created.id}/confirm`, {}));
      expect(confirmed).to.include({
        status: 'succeeded',
        payment_method: created.payment_method,
        last_setup_error: null,
        next_action: null,
      });
      const saved = ok(await server.api.get(`/v1/customers/${customer.id}/payment_methods`)).data;
      expect(saved.map((pm: any) => pm.id)).to.deep.equal([created.payment_method]);
      expect(await eventTypesOf(server.api, created.id)).to.deep.equal([
        'setup_intent.created',
        'setup_intent.succeeded',
      ]);
      expect(await eventTypesOf(server.api, created.payment_method)).to.deep.equal([
        'payment_method.attached',
      ]);
      const paid = ok(await chargeOffSession(server.api, customer.id, created.payment_method));
      expect(paid).to.include({
        status: 'succeeded',
        payment_method: created.payment_method,
        amount_received: 2000,
      });
    });

    it('requires_payment_method → succeeded with the payment method sent to confirm; no customer, nothing attached', async () => {
      const created = ok(await server.api.post('/v1/setup_intents', {}));
      const confirmed = ok(
        await server.api.post(
          `/v1/setup_intents/${created.id}/confirm`,
          { payment_method: 'pm_card_mastercard' },
          { form: true },
        ),
      );
      expect(confirmed.status).to.equal('succeeded');
      expect(
        ok(await server.api.get(`/v1/payment_methods/${confirmed.payment_method}`)),
      ).to.include({ customer: null });
    });

    for (const [testName, declineCode] of DECLINES) {
      it(`${testName}: 402 card_declined (${declineCode}), back to requires_payment_method with last_setup_error`, async () => {
        const { customer, res } = await aConfirmedSetup(server.api, testName);
        const error = expectError(res, 402, 'card_declined');
        expect(error).to.include({ type: 'card_error', decline_code: declineCode });
        expect(error).not.to.have.property('charge');
        const setupIntent = error.setup_intent;
        expect(setupIntent).to.include({ status: 'requires_payment_method', payment_method: null });
        expect(setupIntent.last_setup_error).to.include({
          type: 'card_error',
          code: 'card_declined',
          decline_code: declineCode,
        });
        expect(setupIntent.last_setup_error.payment_method).to.deep.equal(error.payment_method);
        expect(setupIntent.client_secret, 'an error body is no API answer of the object').to.equal(
          undefined,
        );
        expect(await eventTypesOf(server.api, setupIntent.id)).to.deep.equal([
          'setup_intent.created',
          'setup_intent.setup_failed',
        ]);
        expect(
          ok(await server.api.get(`/v1/customers/${customer.id}/payment_methods`)).data,
        ).to.deep.equal([]);
        // Another card then succeeds, and the error is gone.
        const retried = ok(
          await server.api.post(`/v1/setup_intents/${setupIntent.id}/confirm`, {
            payment_method: 'pm_card_visa',
          }),
        );
        expect(retried).to.include({ status: 'succeeded', last_setup_error: null });
      });
    }

    it('a card that asks for authentication waits in requires_action, its page named in next_action', async () => {
      for (const testName of [
        'pm_card_authenticationRequired',
        'pm_card_authenticationRequiredSetupForOffSession',
      ]) {
        const { res } = await aConfirmedSetup(server.api, testName, { return_url: RETURN_URL });
        const waiting = ok(res);
        expect(waiting.status).to.equal('requires_action');
        expect(waiting.next_action).to.deep.equal({
          type: 'redirect_to_url',
          redirect_to_url: {
            url: `${server.url}/authenticate/${waiting.id}?client_secret=${waiting.client_secret}`,
            return_url: RETURN_URL,
          },
        });
        expect(await eventTypesOf(server.api, waiting.id)).to.deep.equal([
          'setup_intent.created',
          'setup_intent.requires_action',
        ]);
        const again = expectError(
          await server.api.post(`/v1/setup_intents/${waiting.id}/confirm`, {}),
          400,
          'setup_intent_unexpected_state',
        );
        expect(again.setup_intent).to.include({ id: waiting.id, status: 'requires_action' });
      }
    });

    it('a succeeded or canceled setup intent is not confirmed again: 400 setup_intent_unexpected_state with the setup intent', async () => {
      const succeeded = ok((await aConfirmedSetup(server.api, 'pm_card_visa')).res);
      const error = expectError(
        await server.api.post(`/v1/setup_intents/${succeeded.id}/confirm`, {
          payment_method: 'pm_card_visa',
        }),
        400,
        'setup_intent_unexpected_state',
      );
      expect(error.message).to.include('succeeded');
      expect(error.setup_intent).to.include({ id: succeeded.id, status: 'succeeded' });
      const canceled = ok(
        await server.api.post(
          `/v1/setup_intents/${ok(await server.api.post('/v1/setup_intents', {})).id}/cancel`,
          {},
        ),
      );
      expectError(
        await server.api.post(`/v1/setup_intents/${canceled.id}/confirm`, {
          payment_method: 'pm_card_visa',
        }),
        400,
        'setup_intent_unexpected_state',
      );
    });

    it("refuses a confirmation without a payment method, and another customer's saved card, naming the field", async () => {
      const created = ok(await server.api.post('/v1/setup_intents', {}));
      expectError(
        await server.api.post(`/v1/setup_intents/${created.id}/confirm`, {}),
        400,
        'parameter_missing',
        'payment_method',
      );
      const owner = ok((await aConfirmedSetup(server.api, 'pm_card_visa')).res);
      const other = await aCustomer(server.api);
      const mine = ok(await server.api.post('/v1/setup_intents', { customer: other.id }));
      expectError(
        await server.api.post(`/v1/setup_intents/${mine.id}/confirm`, {
          payment_method: owner.payment_method,
        }),
        400,
        'parameter_invalid',
        'payment_method',
      );
      expectError(
        await server.api.post(`/v1/setup_intents/${mine.id}/confirm`, {
          payment_method: 'pm_nonesuch',
        }),
        404,
        'resource_missing',
        'payment_method',
      );
      expectError(
        await server.api.post('/v1/setup_intents/seti_nonesuch/confirm', {}),
        404,
        'resource_missing',
        'id',
      );
    });

    it('replays a confirmation with the same Idempotency-Key, a 402 as a 402, with one event each', async () => {
      const created = ok(await server.api.post('/v1/setup_intents', {}));
      const path = `/v1/setup_intents/${created.id}/confirm`;
      const declined = await server.api.post(
        path,
        { payment_method: 'pm_card_chargeDeclined' },
        { idempotencyKey: 'confirm-1' },
      );
      const replayed = await server.api.post(
        path,
        { payment_method: 'pm_card_chargeDeclined' },
        { idempotencyKey: 'confirm-1' },
      );
      expect(replayed.status).to.equal(402);
      expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
      expect(replayed.body.error.setup_intent).to.deep.equal(declined.body.error.setup_intent);
      const succeeded = ok(
        await server.api.post(
          path,
          { payment_method: 'pm_card_visa' },
          { idempotencyKey: 'confirm-2' },
        ),
      );
      expect(
        ok(
          await server.api.post(
            path,
            { payment_method: 'pm_card_visa' },
            { idempotencyKey: 'confirm-2' },
          ),
        ),
      ).to.deep.equal(succeeded);
      expect(await eventTypesOf(server.api, created.id)).to.deep.equal([
        'setup_intent.created',
        'setup_intent.setup_failed',
        'setup_intent.succeeded',
      ]);
    });
  });

  describe('the authentication page', () => {
    it('Complete: succeeded, the card attached, and the browser sent back with the setup intent, its client secret and redirect_status', async () => {
      const { customer, res } = await aConfirmedSetup(
        server.api,
        'pm_card_authenticationRequiredSetupForOffSession',
        { return_url: RETURN_URL },
      );
      const waiting = ok(res);
      const page = await fetch(waiting.next_action.redirect_to_url.url);
      expect(page.status).to.equal(200);
      const html = await page.text();
      expect(html)
        .to.include('Authenticate this card')
        .and.to.include('nothing now (saved for later)');
      const answered = await answerPage(server, waiting, 'succeeded');
      expect(answered.status).to.equal(303);
      const back = new URL(answered.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).to.equal('https://shop.example.com/account/cards');
      expect(Object.fromEntries(back.searchParams)).to.deep.equal({
        step: '2',
        setup_intent: waiting.id,
        setup_intent_client_secret: waiting.client_secret,
        redirect_status: 'succeeded',
      });
      const done = ok(await server.api.get(`/v1/setup_intents/${waiting.id}`));
      expect(done).to.include({
        status: 'succeeded',
        next_action: null,
        payment_method: waiting.payment_method,
      });
      expect(
        ok(await server.api.get(`/v1/payment_methods/${waiting.payment_method}`)).customer,
      ).to.equal(customer.id);
      expect(await eventTypesOf(server.api, waiting.id)).to.deep.equal([
        'setup_intent.created',
        'setup_intent.requires_action',
        'setup_intent.succeeded',
      ]);
      // Set up by an authentication for off-session use: the customer is not asked again.
      expect(
        ok(await chargeOffSession(server.api, customer.id, waiting.payment_method)),
      ).to.include({ status: 'succeeded' });
      // Answered: the page refuses a second answer.
      expect((await answerPage(server, waiting, 'failed')).status).to.equal(409);
    });

    it('Fail: back to requires_payment_method with setup_intent_authentication_failure, and redirect_status=failed', async () => {
      const { res } = await aConfirmedSetup(server.api, 'pm_card_authenticationRequired', {
        return_url: RETURN_URL,
      });
      const waiting = ok(res);
      const answered = await answerPage(server, waiting, 'failed');
      expect(
        new URL(answered.headers.get('location')!).searchParams.get('redirect_status'),
      ).to.equal('failed');
      const failed = ok(await server.api.get(`/v1/setup_intents/${waiting.id}`));
      expect(failed).to.include({
        status: 'requires_payment_method',
        payment_method: null,
        next_action: null,
      });
      expect(failed.last_setup_error).to.include({
        type: 'invalid_request_error',
        code: 'setup_intent_authentication_failure',
      });
      expect(failed.last_setup_error.payment_method.id).to.equal(waiting.payment_method);
      expect(await eventTypesOf(server.api, waiting.id)).to.deep.equal([
        'setup_intent.created',
        'setup_intent.requires_action',
        'setup_intent.setup_failed',
      ]);
    });

    it('without a return_url, the page ends on its own notice; a wrong client secret opens nothing', async () => {
      const { res } = await aConfirmedSetup(server.api, 'pm_card_authenticationRequired');
      const waiting = ok(res);
      expect(waiting.next_action.redirect_to_url.return_url).to.equal(null);
      const wrong = await fetch(
        new URL(
          `/authenticate/${waiting.id}?client_secret=${waiting.id}_secret_${'x'.repeat(24)}`,
          server.url,
        ),
      );
      expect(wrong.status).to.equal(404);
      const answered = await answerPage(server, waiting, 'succeeded');
      expect(answered.status).to.equal(200);
      expect(await answered.text()).to.include('Done');
      expect(ok(await server.api.get(`/v1/setup_intents/${waiting.id}`)).status).to.equal(
        'succeeded',
      );
    });

    it('a card that asks on setup only still asks off-session when set up on_session, and one that always asks always does', async () => {
      const onSession = await aConfirmedSetup(
        server.api,
        'pm_card_authenticationRequiredSetupForOffSession',
        { usage: 'on_session' },
      );
      const always = await aConfirmedSetup(server.api, 'pm_card_authenticationRequired');
      for (const { customer, res } of [onSession, always]) {
        const waiting = ok(res);
        await answerPage(server, waiting, 'succeeded');
        expect(ok(await server.api.get(`/v1/setup_intents/${waiting.id}`)).status).to.equal(
          'succeeded',
        );
        expectError(
          await chargeOffSession(server.api, customer.id, waiting.payment_method),
          402,
          'authentication_required',
        );
      }
    });
  });

  describe('update, cancel, retrieve, list', () => {
    it('updates description and metadata while not final; customer and payment method only before confirmation', async () => {
      const customer = await aCustomer(server.api);
      const created = ok(await server.api.post('/v1/setup_intents', { metadata: { a: '1' } }));
      const path = `/v1/setup_intents/${created.id}`;
      const updated = ok(
        await server.api.patch(path, {
          description: 'Card for the box',
          metadata: { b: '2' },
          customer: customer.id,
        }),
      );
      expect(updated).to.include({
        description: 'Card for the box',
        customer: customer.id,
        status: 'requires_payment_method',
      });
      expect(updated.metadata).to.deep.equal({ a: '1', b: '2' });
      const withCard = ok(
        await server.api.post(
          path,
          { payment_method: 'pm_card_visa', description: '' },
          { form: true, idempotencyKey: 'upd-1' },
        ),
      );
      expect(withCard).to.include({ status: 'requires_confirmation', description: null });
      const replay = await server.api.post(
        path,
        { payment_method: 'pm_card_visa', description: '' },
        { form: true, idempotencyKey: 'upd-1' },
      );
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(ok(replay)).to.deep.equal(withCard);
      ok(await server.api.post(`${path}/confirm`, {}));
      const error = expectError(
        await server.api.post(path, { metadata: { c: '3' } }),
        400,
        'setup_intent_unexpected_state',
      );
      expect(error.setup_intent.status).to.equal('succeeded');
      const waiting = ok((await aConfirmedSetup(server.api, 'pm_card_authenticationRequired')).res);
      expect(
        ok(await server.api.post(`/v1/setup_intents/${waiting.id}`, { metadata: { c: '3' } }))
          .metadata,
      ).to.deep.equal({ c: '3' });
      expectError(
        await server.api.post(`/v1/setup_intents/${waiting.id}`, {
          payment_method: 'pm_card_visa',
        }),
        400,
        'setup_intent_unexpected_state',
      );
      expectError(
        await server.api.patch(path, { usage: 'on_session' }),
        400,
        'parameter_unknown',
        'usage',
      );
    });

    it('cancels from requires_payment_method, requires_confirmation and requires_action, once, with setup_intent.canceled', async () => {
      const fresh = ok(await server.api.post('/v1/setup_intents', {}));
      const confirmable = ok(
        await server.api.post('/v1/setup_intents', { payment_method: 'pm_card_visa' }),
      );
      const waiting = ok(
        (
          await aConfirmedSetup(server.api, 'pm_card_authenticationRequired', {
            return_url: RETURN_URL,
          })
        ).res,
      );
      for (const intent of [fresh, confirmable, waiting]) {
        const path = `/v1/setup_intents/${intent.id}/cancel`;
        const canceled = ok(
          await server.api.post(
            path,
            { cancellation_reason: 'requested_by_customer' },
            { idempotencyKey: `cancel-${intent.id}` },
          ),
        );
        expect(canceled).to.include({
          status: 'canceled',
          cancellation_reason: 'requested_by_customer',
          next_action: null,
        });
        const replay = await server.api.post(
          path,
          { cancellation_reason: 'requested_by_customer' },
          { idempotencyKey: `cancel-${intent.id}` },
        );
        expect(replay.headers.get('idempotent-replayed')).to.equal('true');
        expectError(await server.api.post(path, {}), 400, 'setup_intent_unexpected_state');
        expect((await eventTypesOf(server.api, intent.id)).at(-1)).to.equal(
          'setup_intent.canceled',
        );
        expect(
          (await eventTypesOf(server.api, intent.id)).filter(
            (type) => type === 'setup_intent.canceled',
          ),
        ).to.have.length(1);
      }
      // The page of a canceled setup intent has nothing left to answer.
      expect((await answerPage(server, waiting, 'succeeded')).status).to.equal(409);
      expectError(
        await server.api.post(`/v1/setup_intents/${fresh.id}/cancel`, {
          cancellation_reason: 'fraudulent',
        }),
        400,
        'parameter_invalid',
        'cancellation_reason',
      );
      const succeeded = ok((await aConfirmedSetup(server.api, 'pm_card_visa')).res);
      expectError(
        await server.api.post(`/v1/setup_intents/${succeeded.id}/cancel`, {}),
        400,
        'setup_intent_unexpected_state',
      );
    });

    it("retrieves with expand, and never another account's setup intent", async () => {
      const { customer, res } = await aConfirmedSetup(server.api, 'pm_card_visa');
      const setupIntent = ok(res);
      const expanded = ok(
        await server.api.get(
          `/v1/setup_intents/${setupIntent.id}?expand[]=customer&expand[]=payment_method`,
        ),
      );
      expect(expanded.customer).to.deep.include({ id: customer.id, object: 'customer' });
      expect(expanded.payment_method).to.deep.include({
        id: setupIntent.payment_method,
        object: 'payment_method',
        customer: customer.id,
      });
      expect(expanded.client_secret).to.equal(setupIntent.client_secret);
      expectError(
        await server.otherApi.get(`/v1/setup_intents/${setupIntent.id}`),
        404,
        'resource_missing',
        'id',
      );
      expectError(
        await server.otherApi.post(`/v1/setup_intents/${setupIntent.id}/cancel`, {}),
        404,
        'resource_missing',
      );
      expectError(
        await server.api.get(`/v1/setup_intents/${setupIntent.id}?expand[]=latest_charge`),
        400,
        'parameter_invalid',
        'expand[0]',
      );
    });

    it('lists newest first, by customer and by payment method, page by page', async () => {
      const a = await aConfirmedSetup(server.api, 'pm_card_visa');
      const b = await aConfirmedSetup(server.api, 'pm_card_visa');
      const loose = ok(await server.api.post('/v1/setup_intents', {}));
      const [first, second] = [ok(a.res), ok(b.res)];
      const all = ok(await server.api.get('/v1/setup_intents'));
      expect(all).to.include({ object: 'list', has_more: false, url: '/v1/setup_intents' });
      expect(all.data.map((si: any) => si.id)).to.deep.equal([loose.id, second.id, first.id]);
      expect(all.data[0].client_secret).to.equal(loose.client_secret);
      expect(
        ok(await server.api.get(`/v1/setup_intents?customer=${a.customer.id}`)).data.map(
          (si: any) => si.id,
        ),
      ).to.deep.equal([first.id]);
      expect(
        ok(
          await server.api.get(`/v1/setup_intents?payment_method=${second.payment_method}`),
        ).data.map((si: any) => si.id),
      ).to.deep.equal([second.id]);
      const page1 = ok(await server.api.get('/v1/setup_intents?limit=2'));
      expect(page1.has_more).to.equal(true);
      const page2 = ok(
        await server.api.get(`/v1/setup_intents?limit=2&starting_after=${page1.data[1].id}`),
      );
      expect(page2.data.map((si: any) => si.id)).to.deep.equal([first.id]);
      expect(page2.has_more).to.equal(false);
      const expanded = ok(
        await server.api.get(`/v1/setup_intents?customer=${a.customer.id}&expand[]=data.customer`),
      );
      expect(expanded.data[0].customer.id).to.equal(a.customer.id);
      expectError(
        await server.api.get('/v1/setup_intents?starting_after=seti_nonesuch'),
        400,
        'parameter_invalid',
        'starting_after',
      );
      expectError(
        await server.api.get('/v1/setup_intents?limit=101'),
        400,
        'parameter_invalid',
        'limit',
      );
      expect(ok(await server.otherApi.get('/v1/setup_intents')).data).to.deep.equal([]);
    });

    it('keeps the client secret out of events and webhooks: the event shows the page without it', async () => {
      const waiting = ok(
        (
          await aConfirmedSetup(server.api, 'pm_card_authenticationRequired', {
            return_url: RETURN_URL,
          })
        ).res,
      );
      const events = ok(await server.api.get(`/v1/events?object_id=${waiting.id}`)).data;
      expect(events).to.have.length(2);
      for (const event of events)
        expect(JSON.stringify(event)).not.to.include(waiting.client_secret);
      expect(events[0].data.object.next_action.redirect_to_url.url).to.equal(
        `${server.url}/authenticate/${waiting.id}`,
      );
    });
  });

  describe("the payments API's Python library", () => {
    it("saves a card with no payment and charges it off-session, as Debian's python3-stripe does it", async function () {
      requireProcesses(this);
      this.timeout(30_000);
      const { stdout } = await run(DEBIAN_PYTHON, [
        '-c',
        PYTHON_SAVE_A_CARD,
        server.apiKeys.first,
        server.url,
      ]);
      const seen = JSON.parse(stdout);
      expect(seen).to.deep.include({
        setup: 'succeeded',
        paid: 'succeeded',
        saved: [seen.payment_method],
      });
      expect(seen.declined).to.deep.equal({
        status: 402,
        code: 'card_declined',
        setup_intent: 'requires_payment_method',
      });
      expect(
        ok(await server.api.get(`/v1/setup_intents?customer=${seen.customer}`)).data,
      ).to.have.length(1);
    });
  });

  describe('with the publishable key', () => {
    it('retrieves a setup intent with its client_secret, and only with it, without expand', async () => {
      const pk = await publishableClient(server);
      const created = ok(await server.api.post('/v1/setup_intents', {}));
      const read = ok(
        await pk.get(`/v1/setup_intents/${created.id}?client_secret=${created.client_secret}`),
      );
      expect(read).to.deep.equal(created);
      expectError(
        await pk.get(`/v1/setup_intents/${created.id}`),
        400,
        'parameter_missing',
        'client_secret',
      );
      const other = ok(await server.api.post('/v1/setup_intents', {}));
      expectError(
        await pk.get(`/v1/setup_intents/${created.id}?client_secret=${other.client_secret}`),
        404,
        'resource_missing',
      );
      expectError(
        await pk.get(
          `/v1/setup_intents/${created.id}?client_secret=${created.client_secret}&expand[]=customer`,
        ),
        400,
        'parameter_invalid',
        'expand',
      );
    });

    it('makes a card and confirms a setup intent with it, as a browser does, and may do nothing else', async () => {
      const pk = await publishableClient(server);
      const customer = await aCustomer(server.api);
      const created = ok(await server.api.post('/v1/setup_intents', { customer: customer.id }));
      const card = ok(
        await pk.post(
          '/v1/payment_methods',
          {
            type: 'card',
            card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '314' },
          },
          { form: true },
        ),
      );
      expectError(
        await pk.post('/v1/payment_methods', {
          type: 'card',
          card: { token: 'tok_visa' },
          expand: ['customer'],
        }),
        400,
        'parameter_invalid',
        'expand',
      );
      const path = `/v1/setup_intents/${created.id}/confirm`;
      expectError(
        await pk.post(path, { payment_method: card.id }),
        400,
        'parameter_missing',
        'client_secret',
      );
      const confirmed = ok(
        await pk.post(
          path,
          { payment_method: card.id, client_secret: created.client_secret },
          { idempotencyKey: 'pk-confirm' },
        ),
      );
      expect(confirmed).to.include({
        status: 'succeeded',
        payment_method: card.id,
        client_secret: created.client_secret,
      });
      expect(ok(await server.api.get(`/v1/payment_methods/${card.id}`)).customer).to.equal(
        customer.id,
      );
      for (const res of [
        await pk.post('/v1/setup_intents', {}),
        await pk.get('/v1/setup_intents'),
        await pk.post(`/v1/setup_intents/${created.id}`, { description: 'x' }),
        await pk.post(`/v1/setup_intents/${created.id}/cancel`, {}),
        await pk.get(`/v1/payment_methods/${card.id}`),
      ]) {
        const error = expectError(res, 403, 'insufficient_scope');
        expect(error.message)
          .to.include('confirmSetupIntent')
          .and.to.include('createPaymentMethod');
      }
    });
  });
});
