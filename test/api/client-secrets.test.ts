import { expect } from 'chai';
import Stripe from 'stripe';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { ADMIN_AUTHORIZATION, useTestServer, type TestServer } from '../helpers/test-server.js';

const RETURN_URL = 'https://shop.example.com/checkout/done?order=6735';

function ok(res: ApiResponse): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** The account's publishable key, as the list of its keys shows it (in full: it is public). */
async function publishableKeyOf(api: ApiClient): Promise<string> {
  const keys = ok(await api.get('/v1/api_keys?limit=100')).data;
  const publishable = keys.filter((key: any) => key.type === 'publishable');
  expect(publishable).to.have.length(1);
  return publishable[0].key;
}

/** An intent waiting for its customer's authentication, confirmed with `return_url`. */
async function anIntentAwaitingRedirect(api: ApiClient): Promise<any> {
  const created = ok(await api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', return_url: RETURN_URL }));
  return ok(await api.post(`/v1/payment_intents/${created.id}/confirm`, { payment_method: 'pm_card_authenticationRequired' }));
}

/** Posts the redirect page's form as a browser would, without following the redirect. */
function answerPage(server: TestServer, url: string, form: Record<string, string>): Promise<Response> {
  return fetch(new URL(url, server.url), {
    method: 'POST',
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
}

forEachDatabase('client secrets and publishable keys', (engine) => {
  const server = useTestServer(engine, {}, { per: 'suite' });
  const publishable = () => publishableKeyOf(server.api).then((key) => new ApiClient(server.url, key));

  describe('client_secret', () => {
    it('is on every intent a secret key reads (created, retrieved, listed), unguessable and stored sealed', async () => {
      const created = ok(await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd' }));
      expect(created.client_secret).to.match(new RegExp(`^${created.id}_secret_[0-9A-Za-z]{24}$`));
      expect(ok(await server.api.get(`/v1/payment_intents/${created.id}`)).client_secret).to.equal(created.client_secret);
      const listed = ok(await server.api.get('/v1/payment_intents?limit=1')).data[0];
      expect(listed.client_secret).to.equal(created.client_secret);
      const [row] = await server.db.all<{ client_secret: string }>('SELECT client_secret FROM payment_intents WHERE id = ?', [created.id]);
      expect(row.client_secret).to.match(/^sealed\.v1\./);
      expect(row.client_secret).not.to.include(created.client_secret.slice(-24));
    });

    it('is never in events, nor in the redirect URL they carry', async () => {
      const intent = await anIntentAwaitingRedirect(server.api);
      const events = ok(await server.api.get('/v1/events?limit=10')).data.filter((event: any) => event.data.object.id === intent.id);
      expect(events.map((event: any) => event.type)).to.include.members(['payment_intent.created', 'payment_intent.requires_action']);
      for (const event of events) {
        expect(event.data.object).not.to.have.property('client_secret');
        expect(JSON.stringify(event)).not.to.include(intent.client_secret);
      }
      const action = events.find((event: any) => event.type === 'payment_intent.requires_action').data.object.next_action;
      expect(action).to.deep.equal({ type: 'redirect_to_url', redirect_to_url: { url: `${server.url}/authenticate/${intent.id}`, return_url: RETURN_URL } });
    });
  });

  describe('return_url and next_action', () => {
    it('an intent confirmed with return_url waits with redirect_to_url, its page carrying the client secret', async () => {
      const intent = await anIntentAwaitingRedirect(server.api);
      expect(intent.status).to.equal('requires_action');
      expect(intent.next_action).to.deep.equal({
        type: 'redirect_to_url',
        redirect_to_url: { url: `${server.url}/authenticate/${intent.id}?client_secret=${intent.client_secret}`, return_url: RETURN_URL },
      });
    });

    it('return_url given to confirm counts too; without any, next_action stays the test helper', async () => {
      const bare = ok(await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd' }));
      const helper = ok(await server.api.post(`/v1/payment_intents/${bare.id}/confirm`, { payment_method: 'pm_card_authenticationRequired' }));
      expect(helper.next_action.type).to.equal('authenticate');
      const other = ok(await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd' }));
      const confirmed = ok(
        await server.api.post(`/v1/payment_intents/${other.id}/confirm`, { payment_method: 'pm_card_authenticationRequired', return_url: RETURN_URL }),
      );
      expect(confirmed.next_action.redirect_to_url.return_url).to.equal(RETURN_URL);
    });

    it('refuses a return_url that is not an http(s) URL, naming it', async () => {
      const res = await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', return_url: 'javascript:alert(1)' });
      expectError(res, 400, 'parameter_invalid', 'return_url');
    });
  });

  describe('the redirect page', () => {
    it('completes the authentication and sends the browser back with the intent, its client secret and redirect_status', async () => {
      const intent = await anIntentAwaitingRedirect(server.api);
      const res = await answerPage(server, `/authenticate/${intent.id}`, { client_secret: intent.client_secret, outcome: 'succeeded' });
      expect(res.status).to.equal(303);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).to.equal('https://shop.example.com/checkout/done');
      expect(Object.fromEntries(back.searchParams)).to.deep.equal({
        order: '6735',
        payment_intent: intent.id,
        payment_intent_client_secret: intent.client_secret,
        redirect_status: 'succeeded',
      });
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`)).status).to.equal('succeeded');
    });

    it('fails it: the intent is back in requires_payment_method, and the browser told redirect_status=failed', async () => {
      const intent = await anIntentAwaitingRedirect(server.api);
      const res = await answerPage(server, `/authenticate/${intent.id}`, { client_secret: intent.client_secret, outcome: 'failed' });
      expect(new URL(res.headers.get('location')!).searchParams.get('redirect_status')).to.equal('failed');
      const after = ok(await server.api.get(`/v1/payment_intents/${intent.id}`));
      expect(after.status).to.equal('requires_payment_method');
      expect(after.last_payment_error.code).to.equal('payment_intent_authentication_failure');
    });

    it('opens nothing without the right client secret, the same 404 for every wrong link, changing nothing', async () => {
      const intent = await anIntentAwaitingRedirect(server.api);
      const other = await anIntentAwaitingRedirect(server.otherApi);
      const wrong = [
        `/authenticate/${intent.id}`,
        `/authenticate/${intent.id}?client_secret=${other.client_secret}`,
        `/authenticate/${intent.id}?client_secret=${intent.client_secret.slice(0, -1)}x`,
        `/authenticate/pi_000000000000000000000000?client_secret=${intent.client_secret}`,
        `/authenticate/constructor?client_secret=x`,
      ];
      for (const path of wrong) expect((await fetch(new URL(path, server.url))).status, path).to.equal(404);
      const posted = await answerPage(server, `/authenticate/${intent.id}`, { client_secret: other.client_secret, outcome: 'succeeded' });
      expect(posted.status).to.equal(404);
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`)).status).to.equal('requires_action');
    });

    it('an answered intent is not answered twice', async () => {
      const intent = await anIntentAwaitingRedirect(server.api);
      const form = { client_secret: intent.client_secret, outcome: 'succeeded' };
      expect((await answerPage(server, `/authenticate/${intent.id}`, form)).status).to.equal(303);
      expect((await answerPage(server, `/authenticate/${intent.id}`, { ...form, outcome: 'failed' })).status).to.equal(409);
      expect(ok(await server.api.get(`/v1/payment_intents/${intent.id}`)).status).to.equal('succeeded');
    });
  });

  describe('publishable keys', () => {
    it('every account has one, returned when the account is made and listed with its keys', async () => {
      const res = await fetch(new URL('/admin/accounts', server.url), {
        method: 'POST',
        headers: { Authorization: ADMIN_AUTHORIZATION, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Acme', email: 'ops@acme.test' }),
      });
      const account = (await res.json()) as { api_key: string; publishable_key: string };
      expect(account.publishable_key).to.match(/^pk_test_[0-9A-Za-z]{32}$/);
      expect(await publishableKeyOf(new ApiClient(server.url, account.api_key))).to.equal(account.publishable_key);
    });

    it('retrieves an intent with its client_secret, and only with it', async () => {
      const pk = await publishable();
      const intent = await anIntentAwaitingRedirect(server.api);
      const read = ok(await pk.get(`/v1/payment_intents/${intent.id}?client_secret=${intent.client_secret}`));
      expect(read.client_secret).to.equal(intent.client_secret);
      expect(read.next_action.redirect_to_url.url).to.include(intent.client_secret);
      expectError(await pk.get(`/v1/payment_intents/${intent.id}`), 400, 'parameter_missing', 'client_secret');
      const other = await anIntentAwaitingRedirect(server.otherApi);
      expectError(await pk.get(`/v1/payment_intents/${intent.id}?client_secret=${other.client_secret}`), 404, 'resource_missing');
      expectError(await pk.get(`/v1/payment_intents/${other.id}?client_secret=${other.client_secret}`), 404, 'resource_missing');
      const expanded = await pk.get(`/v1/payment_intents/${intent.id}?client_secret=${intent.client_secret}&expand[]=customer`);
      expectError(expanded, 400, 'parameter_invalid', 'expand');
    });

    it('confirms an intent with its client_secret, and refuses what a secret key alone may set', async () => {
      const pk = await publishable();
      const created = ok(await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd' }));
      const path = `/v1/payment_intents/${created.id}/confirm`;
      expectError(await pk.post(path, { payment_method: 'pm_card_visa' }), 400, 'parameter_missing', 'client_secret');
      const manual = { payment_method: 'pm_card_visa', client_secret: created.client_secret, capture_method: 'manual' };
      expectError(await pk.post(path, manual), 400, 'parameter_invalid', 'capture_method');
      const confirmed = ok(await pk.post(path, { payment_method: 'pm_card_visa', client_secret: created.client_secret }));
      expect(confirmed).to.include({ status: 'succeeded', client_secret: created.client_secret });
    });

    it('is refused everything else: 403 naming what it may do, on REST and GraphQL', async () => {
      const pk = await publishable();
      for (const res of [
        await pk.get('/v1/charges'),
        await pk.post('/v1/payment_intents', { amount: 2000, currency: 'usd' }),
        await pk.get('/v1/payment_intents'),
        await pk.get('/v1/api_keys'),
        await pk.post('/v1/customers', { email: 'x@example.com' }),
      ]) {
        const error = expectError(res, 403, 'insufficient_scope');
        expect(error.type).to.equal('permission_error');
        expect(error.message).to.include('retrievePaymentIntent').and.to.include('confirmPaymentIntent');
      }
      // As the HTTP Basic user name (`curl -u pk_test_…:`), the same: its operations, and nothing else.
      const key = await publishableKeyOf(server.api);
      const basic = { Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
      const intent = await anIntentAwaitingRedirect(server.api);
      expect(ok(await server.anonymous.get(`/v1/payment_intents/${intent.id}?client_secret=${intent.client_secret}`, { headers: basic })).id).to.equal(intent.id);
      expectError(await server.anonymous.get('/v1/charges', { headers: basic }), 403, 'insufficient_scope');
      const graphql = await pk.post('/graphql', { query: '{ charges(first: 1) { edges { node { id } } } }' });
      expect(JSON.stringify(graphql.body)).to.include('publishable key may only');
    });

    it('works with the official client library: retrieve and confirm with the client secret', async () => {
      const intent = await anIntentAwaitingRedirect(server.api);
      const pk = await publishableKeyOf(server.api);
      const stripe = new Stripe(pk, { host: '127.0.0.1', port: Number(new URL(server.url).port), protocol: 'http', maxNetworkRetries: 0 });
      const read = await stripe.paymentIntents.retrieve(intent.id, { client_secret: intent.client_secret });
      expect(read).to.include({ id: intent.id, status: 'requires_action', client_secret: intent.client_secret });
      const created = ok(await server.api.post('/v1/payment_intents', { amount: 1500, currency: 'eur' }));
      const confirmed = await stripe.paymentIntents.confirm(created.id, { payment_method: 'pm_card_visa', client_secret: created.client_secret } as never);
      expect(confirmed).to.include({ status: 'succeeded', amount_received: 1500 });
      await stripe.charges.list().then(
        () => expect.fail('a publishable key listed charges'),
        (error: any) => expect(error.statusCode).to.equal(403),
      );
    });
  });
});
