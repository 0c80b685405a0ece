import { expect } from 'chai';
import type { ApiClient, ApiResponse } from '../helpers/api-client.js';
import { aCustomer, expectError } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

const VISA = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '314' };

function ok(res: ApiResponse): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** A card payment method made from `card` (a test number with its expiry, or `{token}`). */
async function aCard(api: ApiClient, card: Record<string, unknown> = { token: 'tok_visa' }, more: Record<string, unknown> = {}): Promise<any> {
  return ok(await api.post('/v1/payment_methods', { type: 'card', card, ...more }));
}

/** Resolves after `ms` milliseconds: staggers two requests, whose order the test does not assert. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function eventsOldestFirst(api: ApiClient, type: string): Promise<any[]> {
  const page = ok(await api.get(`/v1/events?type=${type}&limit=100`));
  return page.data.reverse();
}

forEachDatabase('payment methods', (engine) => {
  // Every test reads only what its two accounts made, so one server serves the file.
  const server = useTestServer(engine, {}, { per: 'account' });

  describe('createPaymentMethod', () => {
    it('makes a card from a test card number: last4, brand, expiry and checks, never the number', async () => {
      const pm = await aCard(server.api, VISA, { billing_details: { name: 'Jenny Rosen' }, metadata: { order: '6735' } });
      expect(pm.id).to.match(/^pm_[0-9A-Za-z]{24}$/);
      expect(pm).to.deep.include({
        object: 'payment_method',
        livemode: false,
        type: 'card',
        customer: null,
        customer_account: null,
        metadata: { order: '6735' },
        billing_details: { address: null, email: null, name: 'Jenny Rosen', phone: null, tax_id: null },
      });
      expect(pm.card).to.deep.include({
        brand: 'visa',
        display_brand: 'visa',
        last4: '4242',
        exp_month: 12,
        exp_year: 2034,
        funding: 'credit',
        country: 'US',
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
        networks: { available: ['visa'], preferred: null },
        three_d_secure_usage: { supported: true },
        wallet: null,
      });
      expect(JSON.stringify(pm)).to.not.include(VISA.number);
    });

    it('gives one fingerprint per card number, whether from the number, a token or a test name', async () => {
      const fromNumber = await aCard(server.api, VISA);
      const fromToken = await aCard(server.api, { token: 'tok_visa' });
      const mastercard = await aCard(server.api, { number: '5555555555554444', exp_month: 1, exp_year: 2031 });
      expect(fromToken.card.fingerprint).to.equal(fromNumber.card.fingerprint);
      expect(mastercard.card).to.include({ brand: 'mastercard', last4: '4444' });
      expect(mastercard.card.fingerprint).to.not.equal(fromNumber.card.fingerprint);
      const intent = ok(await server.api.post('/v1/payment_intents', { amount: 100, currency: 'usd', payment_method: 'pm_card_visa' }));
      const fromName = ok(await server.api.get(`/v1/payment_methods/${intent.payment_method}`));
      expect(fromName.card.fingerprint).to.equal(fromNumber.card.fingerprint);
    });

    it('refuses a real card number (it passes Luhn but is no test card), saying so, and stores nothing', async () => {
      // Luhn-valid numbers that are not test cards here.
      const real = '4111111111111111';
      const res = await server.api.post('/v1/payment_methods', { type: 'card', card: { ...VISA, number: '4000056655665556' } });
      const error = expectError(res, 400, 'parameter_invalid', 'card[number]');
      expect(error.message).to.match(/real card numbers are never accepted/i);
      expect(error.message).to.not.include('4000056655665556');
      expectError(await server.api.post('/v1/payment_methods', { type: 'card', card: { ...VISA, number: real } }), 400, 'parameter_invalid', 'card[number]');
      expect(ok(await server.api.get('/v1/payment_methods')).data).to.deep.equal([]);
    });

    it('refuses a number that fails the Luhn check, an unknown token and a missing expiry, naming the field', async () => {
      const wrong = await server.api.post('/v1/payment_methods', { type: 'card', card: { ...VISA, number: '4242424242424241' } });
      expect(expectError(wrong, 400, 'parameter_invalid', 'card[number]').message).to.equal('Your card number is incorrect.');
      expectError(await server.api.post('/v1/payment_methods', { type: 'card', card: { token: 'tok_nope' } }), 400, 'parameter_invalid', 'card[token]');
      expectError(
        await server.api.post('/v1/payment_methods', { type: 'card', card: { number: VISA.number, exp_year: 2034 } }),
        400,
        'parameter_missing',
        'card[exp_month]',
      );
      expectError(await server.api.post('/v1/payment_methods', { type: 'card', card: { ...VISA, exp_month: 13 } }), 400, 'parameter_invalid');
    });

    it('takes a form body in bracket notation, as the payment SDKs send it', async () => {
      const form = {
        type: 'card',
        'card[number]': '5555555555554444',
        'card[exp_month]': '4',
        'card[exp_year]': '2032',
        'billing_details[address][postal_code]': '94103',
      };
      const pm = ok(await server.api.post('/v1/payment_methods', form, { form: true }));
      expect(pm.card).to.include({ brand: 'mastercard', exp_month: 4, exp_year: 2032 });
      expect(pm.billing_details.address).to.deep.equal({
        city: null,
        country: null,
        line1: null,
        line2: null,
        postal_code: '94103',
        state: null,
      });
    });

    it('never stores the number: not in its row, its events, nor the idempotency record', async () => {
      const pm = ok(
        await server.api.post('/v1/payment_methods', { type: 'card', card: { ...VISA, number: '4000000000009995' } }, { idempotencyKey: 'card-1' }),
      );
      expect(pm.card.last4).to.equal('9995');
      for (const table of ['payment_methods', 'events', 'idempotency_keys']) {
        const rows = await server.db.all(`SELECT * FROM ${table}`);
        expect(JSON.stringify(rows), table).to.not.include('4000000000009995');
      }
    });

    it('replays a create with the same Idempotency-Key: one payment method', async () => {
      const first = await server.api.post('/v1/payment_methods', { type: 'card', card: VISA }, { idempotencyKey: 'pm-1' });
      const again = await server.api.post('/v1/payment_methods', { type: 'card', card: VISA }, { idempotencyKey: 'pm-1' });
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body).to.deep.equal(ok(first));
      expect(ok(await server.api.get('/v1/payment_methods')).data).to.have.length(1);
    });
  });

  describe('the test card numbers', () => {
    const DECLINES: Array<[number: string, declineCode: string]> = [
      ['4000000000000002', 'generic_decline'],
      ['4000000000009995', 'insufficient_funds'],
      ['4000000000009987', 'lost_card'],
      ['4000000000000069', 'expired_card'],
      ['4000000000000127', 'incorrect_cvc'],
    ];

    it('decline as the documented test cards do, with their decline codes', async () => {
      for (const [number, declineCode] of DECLINES) {
        const pm = await aCard(server.api, { number, exp_month: 12, exp_year: 2034 });
        const res = await server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', payment_method: pm.id, confirm: true });
        const error = expectError(res, 402, 'card_declined');
        expect(error.decline_code, number).to.equal(declineCode);
        expect(error.payment_intent.last_payment_error.payment_method.id).to.equal(pm.id);
      }
    });

    it('succeed, or ask for authentication (always, or on session for the setup-only card)', async () => {
      const paid = await aCard(server.api, { number: '4242424242424242', exp_month: 12, exp_year: 2034 });
      const confirm = (pm: any) => server.api.post('/v1/payment_intents', { amount: 2000, currency: 'usd', payment_method: pm.id, confirm: true });
      expect(ok(await confirm(paid)).status).to.equal('succeeded');
      for (const number of ['4000002760003184', '4000002500003155']) {
        const pm = await aCard(server.api, { number, exp_month: 12, exp_year: 2034 });
        expect(ok(await confirm(pm)).status, number).to.equal('requires_action');
      }
    });
  });

  describe('retrieve, update and list', () => {
    it("retrieves a payment method; another account's id is 404", async () => {
      const pm = await aCard(server.api);
      expect(ok(await server.api.get(`/v1/payment_methods/${pm.id}`))).to.deep.equal(pm);
      expectError(await server.otherApi.get(`/v1/payment_methods/${pm.id}`), 404, 'resource_missing', 'id');
    });

    it('updates billing details, metadata and expiry, recording payment_method.updated with what changed', async () => {
      const pm = await aCard(server.api, VISA, { billing_details: { name: 'Jenny Rosen' } });
      const updated = ok(
        await server.api.post(`/v1/payment_methods/${pm.id}`, {
          billing_details: { email: 'jenny@example.com' },
          card: { exp_year: 2035 },
          metadata: { label: 'work' },
        }),
      );
      expect(updated.billing_details).to.include({ name: 'Jenny Rosen', email: 'jenny@example.com' });
      expect(updated.card).to.include({ exp_month: 12, exp_year: 2035 });
      expect(updated.metadata).to.deep.equal({ label: 'work' });
      const [event] = await eventsOldestFirst(server.api, 'payment_method.updated');
      expect(event.data.object).to.deep.equal(updated);
      expect(event.data.previous_attributes).to.have.keys('billing_details', 'card', 'metadata');
      const patched = ok(await server.api.patch(`/v1/payment_methods/${pm.id}`, { metadata: { label: '' } }));
      expect(patched.metadata).to.deep.equal({});
    });

    it("keeps the cardholder's tax id as given, shows it on the charges paid with the card, and unsets it when empty", async () => {
      const pm = await aCard(server.api, VISA, { billing_details: { tax_id: '000.000.000-00' } });
      expect(pm.billing_details).to.include({ tax_id: '000.000.000-00', name: null });
      const intent = ok(
        await server.api.post('/v1/payment_intents', { amount: 500, currency: 'usd', payment_method: pm.id, confirm: true }),
      );
      const charge = ok(await server.api.get(`/v1/charges/${intent.latest_charge}`));
      expect(charge.billing_details).to.deep.equal(pm.billing_details);
      const renamed = ok(await server.api.post(`/v1/payment_methods/${pm.id}`, { billing_details: { name: 'Jenny Rosen' } }));
      expect(renamed.billing_details).to.include({ tax_id: '000.000.000-00', name: 'Jenny Rosen' });
      const unset = ok(await server.api.post(`/v1/payment_methods/${pm.id}`, { 'billing_details[tax_id]': '' }, { form: true }));
      expect(unset.billing_details).to.include({ tax_id: null, name: 'Jenny Rosen' });
    });

    it('lists newest first, by customer, and a customer\'s own list', async () => {
      const customer = await aCustomer(server.api);
      const loose = await aCard(server.api);
      const saved = await aCard(server.api, { token: 'tok_mastercard' });
      ok(await server.api.post(`/v1/payment_methods/${saved.id}/attach`, { customer: customer.id }));
      const all = ok(await server.api.get('/v1/payment_methods?type=card'));
      expect(all.data.map((x: any) => x.id)).to.deep.equal([saved.id, loose.id]);
      const theirs = ok(await server.api.get(`/v1/payment_methods?customer=${customer.id}`));
      expect(theirs.data.map((x: any) => x.id)).to.deep.equal([saved.id]);
      const nested = ok(await server.api.get(`/v1/customers/${customer.id}/payment_methods?expand[]=data.customer`));
      expect(nested).to.include({ url: `/v1/customers/${customer.id}/payment_methods`, has_more: false });
      expect(nested.data[0].customer).to.include({ id: customer.id, object: 'customer' });
      expect(ok(await server.api.get(`/v1/customers/${customer.id}/payment_methods/${saved.id}`)).id).to.equal(saved.id);
      expectError(await server.api.get(`/v1/customers/${customer.id}/payment_methods/${loose.id}`), 404, 'resource_missing', 'payment_method');
      expectError(await server.otherApi.get(`/v1/customers/${customer.id}/payment_methods`), 404, 'resource_missing', 'id');
    });
  });

  describe('attach and detach', () => {
    it('attaches to a customer (payment_method.attached) and detaches (payment_method.detached)', async () => {
      const customer = await aCustomer(server.api);
      const pm = await aCard(server.api);
      const attached = ok(await server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: customer.id }));
      expect(attached.customer).to.equal(customer.id);
      // Attaching again to the same customer changes nothing.
      expect(ok(await server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: customer.id }))).to.deep.equal(attached);
      const detached = ok(await server.api.post(`/v1/payment_methods/${pm.id}/detach`));
      expect(detached.customer).to.equal(null);
      expect((await eventsOldestFirst(server.api, 'payment_method.attached')).map((e) => e.data.object)).to.deep.equal([attached]);
      const [event] = await eventsOldestFirst(server.api, 'payment_method.detached');
      expect(event.data).to.deep.equal({ object: detached, previous_attributes: { customer: customer.id } });
      const again = await server.api.post(`/v1/payment_methods/${pm.id}/detach`);
      expectError(again, 400, 'payment_method_unexpected_state');
    });

    it("refuses to attach one attached to another customer, or to another account's customer", async () => {
      const [a, b] = [await aCustomer(server.api), await aCustomer(server.api)];
      const pm = await aCard(server.api);
      ok(await server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: a.id }));
      expectError(await server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: b.id }), 400, 'payment_method_unexpected_state');
      const theirs = await aCustomer(server.otherApi);
      const other = await aCard(server.api);
      expectError(await server.api.post(`/v1/payment_methods/${other.id}/attach`, { customer: theirs.id }), 404, 'resource_missing', 'customer');
    });

    it('lets one of two concurrent attaches to two customers win', async () => {
      const [a, b] = [await aCustomer(server.api), await aCustomer(server.api)];
      for (let round = 0; round < 3; round++) {
        const pm = await aCard(server.api);
        const answers = await Promise.all([
          server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: a.id }),
          server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: b.id }),
        ]);
        const winners = answers.filter((res) => res.status === 200);
        expect(winners, JSON.stringify(answers.map((res) => res.body))).to.have.length(1);
        const loser = answers.find((res) => res.status !== 200)!;
        expectError(loser, 400, 'payment_method_unexpected_state');
        const now = ok(await server.api.get(`/v1/payment_methods/${pm.id}`));
        expect(now.customer).to.equal(winners[0].body.customer);
        const attached = (await eventsOldestFirst(server.api, 'payment_method.attached')).filter((e) => e.data.object.id === pm.id);
        expect(attached).to.have.length(1);
      }
    });

    it('leaves one consistent state after a detach and an attach to another customer at the same moment', async () => {
      const [a, b] = [await aCustomer(server.api), await aCustomer(server.api)];
      for (let round = 0; round < 6; round++) {
        const pm = await aCard(server.api);
        ok(await server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: a.id }));
        const detaching = () => server.api.post(`/v1/payment_methods/${pm.id}/detach`);
        const attaching = () => server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: b.id });
        // Even rounds send the detach first, odd ones the attach (and the detach a little later):
        // which one reaches the row first is not asserted, but the answers and the state must agree.
        const [detach, attach] =
          round % 2 === 0
            ? await Promise.all([detaching(), attaching()])
            : await Promise.all([attaching(), pause(round).then(detaching)]).then(([attached, detached]) => [detached, attached]);
        // The detach always wins: it finds the card attached to a, whichever runs first.
        expect(ok(detach).id).to.equal(pm.id);
        // The attach wins only after it; before it, the card still belongs to a.
        if (attach.status !== 200) expectError(attach, 400, 'payment_method_unexpected_state', 'id');
        const now = ok(await server.api.get(`/v1/payment_methods/${pm.id}`));
        expect(now.customer).to.equal(attach.status === 200 ? b.id : null);
        // The events tell the same story as the row: attached to a, detached, attached to b if that won.
        const ofCard = async (type: string) =>
          (await eventsOldestFirst(server.api, type)).filter((e) => e.data.object.id === pm.id).map((e) => e.data.object.customer);
        expect(await ofCard('payment_method.attached')).to.deep.equal(attach.status === 200 ? [a.id, b.id] : [a.id]);
        expect(await ofCard('payment_method.detached')).to.deep.equal([null]);
        const listed = async (customer: string) => ok(await server.api.get(`/v1/customers/${customer}/payment_methods`)).data;
        expect((await listed(a.id)).map((m: any) => m.id)).to.not.include(pm.id);
        expect((await listed(b.id)).map((m: any) => m.id).includes(pm.id)).to.equal(attach.status === 200);
      }
    });

    it('replays attach and detach with the same Idempotency-Key, recording each event once', async () => {
      const customer = await aCustomer(server.api);
      const pm = await aCard(server.api);
      for (const [path, body] of [
        [`/v1/payment_methods/${pm.id}/attach`, { customer: customer.id }],
        [`/v1/payment_methods/${pm.id}/detach`, {}],
      ] as const) {
        const first = ok(await server.api.post(path, body, { idempotencyKey: `${path}-key` }));
        const again = await server.api.post(path, body, { idempotencyKey: `${path}-key` });
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(first);
      }
      expect(await eventsOldestFirst(server.api, 'payment_method.attached')).to.have.length(1);
      expect(await eventsOldestFirst(server.api, 'payment_method.detached')).to.have.length(1);
    });
  });

  describe("a customer's default payment method", () => {
    it('is set to an attached payment method, and cleared when that one is detached', async () => {
      const customer = await aCustomer(server.api);
      expect(customer.invoice_settings.default_payment_method).to.equal(null);
      const pm = await aCard(server.api);
      const refused = await server.api.post(`/v1/customers/${customer.id}`, { invoice_settings: { default_payment_method: pm.id } });
      expectError(refused, 400, 'parameter_invalid', 'invoice_settings[default_payment_method]');
      ok(await server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: customer.id }));
      const set = ok(
        await server.api.post(`/v1/customers/${customer.id}`, { 'invoice_settings[default_payment_method]': pm.id }, { form: true }),
      );
      expect(set.invoice_settings.default_payment_method).to.equal(pm.id);
      ok(await server.api.post(`/v1/payment_methods/${pm.id}/detach`));
      const after = ok(await server.api.get(`/v1/customers/${customer.id}`));
      expect(after.invoice_settings.default_payment_method).to.equal(null);
      const updates = await eventsOldestFirst(server.api, 'customer.updated');
      expect(updates.map((e) => e.data.previous_attributes)).to.deep.equal([
        { invoice_settings: { default_payment_method: null } },
        { invoice_settings: { default_payment_method: pm.id } },
      ]);
    });

    it('never keeps as default a payment method detached at the same moment', async () => {
      for (let round = 0; round < 3; round++) {
        const customer = await aCustomer(server.api);
        const pm = await aCard(server.api);
        ok(await server.api.post(`/v1/payment_methods/${pm.id}/attach`, { customer: customer.id }));
        await Promise.all([
          server.api.post(`/v1/customers/${customer.id}`, { invoice_settings: { default_payment_method: pm.id } }),
          server.api.post(`/v1/payment_methods/${pm.id}/detach`),
        ]);
        const after = ok(await server.api.get(`/v1/customers/${customer.id}`));
        expect(ok(await server.api.get(`/v1/payment_methods/${pm.id}`)).customer).to.equal(null);
        expect(after.invoice_settings.default_payment_method).to.equal(null);
      }
    });
  });
});
