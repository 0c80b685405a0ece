import { expect } from 'chai';
import Stripe from 'stripe';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/** What an event's `data.object` is read back with, by the prefix of the event's type. */
type Retriever = (stripe: Stripe, id: string) => Promise<{ id: string; object: string }>;

const RETRIEVERS: Record<string, Retriever> = {
  customer: (stripe, id) => stripe.customers.retrieve(id),
  charge: (stripe, id) => stripe.charges.retrieve(id),
  refund: (stripe, id) => stripe.refunds.retrieve(id),
  payment_intent: (stripe, id) => stripe.paymentIntents.retrieve(id),
  payment_method: (stripe, id) => stripe.paymentMethods.retrieve(id),
};

/** An object as events and error bodies carry it: an intent without its `client_secret`. */
function withoutClientSecret<T extends object>(object: T): T {
  const { client_secret: _secret, ...rest } = object as T & { client_secret?: string };
  return rest as T;
}

/**
 * The official client library of the widely used payments API, unmodified, pointed at the test
 * server: what an integrator already using that library relies on when they switch to this API.
 */
forEachDatabase('the official client library', (engine) => {
  const server = useTestServer(engine);

  /** A client of the first test account, over plain HTTP to the test server. */
  function client(): Stripe {
    return new Stripe(server.apiKeys.first, {
      host: '127.0.0.1',
      port: Number(new URL(server.url).port),
      protocol: 'http',
      // A refused request must fail the test, not be retried behind its back.
      maxNetworkRetries: 0,
    });
  }

  /** A manual payment taken from creation to a partial capture and a refund of what was captured. */
  async function aCapturedAndRefundedPayment(stripe: Stripe, customer?: string) {
    const created = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      capture_method: 'manual',
      customer,
      description: 'Order 6735',
      metadata: { order: '6735' },
    });
    const confirmed = await stripe.paymentIntents.confirm(created.id, { payment_method: 'pm_card_visa' });
    const captured = await stripe.paymentIntents.capture(created.id, { amount_to_capture: 1500 });
    const refund = await stripe.refunds.create({ payment_intent: created.id });
    return { created, confirmed, captured, refund };
  }

  it('creates, confirms, captures part of and refunds a payment intent', async () => {
    const stripe = client();
    const { created, confirmed, captured, refund } = await aCapturedAndRefundedPayment(stripe);
    expect(created).to.include({
      object: 'payment_intent',
      status: 'requires_payment_method',
      capture_method: 'manual',
      amount: 2000,
    });
    expect(created.metadata).to.deep.equal({ order: '6735' });
    expect(confirmed).to.include({
      id: created.id,
      status: 'requires_capture',
      amount_capturable: 2000,
    });
    // The test name is answered as the payment method made from it.
    expect(confirmed.payment_method).to.match(/^pm_[0-9A-Za-z]{24}$/);
    expect(captured).to.include({ status: 'succeeded', amount_received: 1500, amount_capturable: 0 });
    expect(refund).to.include({ object: 'refund', amount: 1500, payment_intent: created.id, charge: captured.latest_charge });
    const charge = await stripe.charges.retrieve(captured.latest_charge as string);
    expect(charge).to.include({ amount: 2000, amount_captured: 1500, amount_refunded: 2000, captured: true, refunded: true });
    expect(charge.refunds!.data.map((r) => r.amount)).to.deep.equal([1500, 500]);
    const expanded = await stripe.paymentIntents.retrieve(created.id, { expand: ['latest_charge'] });
    expect(expanded.latest_charge).to.deep.equal(charge);
  });

  it('lists the intents created since a time, page by page, and the events of some types', async () => {
    const stripe = client();
    const earlier = await stripe.paymentIntents.create({ amount: 100, currency: 'usd' });
    server.clock.advance(10_000);
    const since = earlier.created + 10;
    const { created: first } = await aCapturedAndRefundedPayment(stripe);
    const second = await stripe.paymentIntents.create({ amount: 300, currency: 'eur' });
    // One per page: the client follows `has_more` with `starting_after`, keeping the filter.
    const listed = await stripe.paymentIntents.list({ created: { gte: since }, limit: 1 }).autoPagingToArray({ limit: 10 });
    expect(listed.map((intent) => intent.id)).to.deep.equal([second.id, first.id]);
    const events = await stripe.events
      .list({ types: ['payment_intent.created', 'charge.captured'] })
      .autoPagingToArray({ limit: 100 });
    expect(events.map((event) => event.type)).to.deep.equal([
      'payment_intent.created',
      'charge.captured',
      'payment_intent.created',
      'payment_intent.created',
    ]);
    expect(events.map((event) => (event.data.object as { id: string }).id)).to.deep.equal([
      second.id,
      (await stripe.paymentIntents.retrieve(first.id)).latest_charge,
      first.id,
      earlier.id,
    ]);
  });

  it('retrieves a deleted customer as deleted', async () => {
    const stripe = client();
    const customer = await stripe.customers.create({ email: 'jenny@example.com', name: 'Jenny Rosen' });
    const deleted = await stripe.customers.del(customer.id);
    expect(deleted).to.deep.equal({ id: customer.id, object: 'customer', deleted: true });
    const retrieved = await stripe.customers.retrieve(customer.id);
    expect(retrieved).to.deep.equal({ id: customer.id, object: 'customer', deleted: true });
  });

  it('raises a decline as a StripeCardError that carries the intent', async () => {
    const stripe = client();
    const attempt = stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      payment_method: 'pm_card_chargeDeclined',
      confirm: true,
    });
    const error = await attempt.then(
      () => expect.fail('the declined payment was answered as a success'),
      (thrown: unknown) => thrown,
    );
    expect(error).to.be.an.instanceOf(Stripe.errors.StripeCardError);
    const declined = error as Stripe.errors.StripeCardError;
    expect(declined).to.include({
      statusCode: 402,
      type: 'StripeCardError',
      code: 'card_declined',
      decline_code: 'generic_decline',
    });
    expect(declined.requestId).to.match(/^req_/);
    expect(declined.charge).to.match(/^ch_/);
    const intent = declined.payment_intent!;
    expect(intent).to.include({ object: 'payment_intent', status: 'requires_payment_method', latest_charge: declined.charge });
    // The intent of an error leaves out its client secret (error bodies get logged), as events do.
    expect(withoutClientSecret(await stripe.paymentIntents.retrieve(intent.id))).to.deep.equal(intent);
    expect(await stripe.charges.retrieve(declined.charge!)).to.include({ status: 'failed', payment_intent: intent.id });
  });

  it("reads every event's object back by its id, and the newest event of each object shows it as it is", async () => {
    const stripe = client();
    const customer = await stripe.customers.create({ email: 'jenny@example.com' });
    await aCapturedAndRefundedPayment(stripe, customer.id);
    await stripe.paymentIntents
      .create({ amount: 500, currency: 'usd', payment_method: 'pm_card_chargeDeclined', confirm: true })
      .catch((error: unknown) => expect(error).to.be.an.instanceOf(Stripe.errors.StripeCardError));
    const authorised = await stripe.paymentIntents.create({
      amount: 700,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    });
    await stripe.paymentIntents.cancel(authorised.id);
    const card = await stripe.paymentMethods.create({ type: 'card', card: { token: 'tok_visa' } });
    await stripe.paymentMethods.attach(card.id, { customer: customer.id });
    await stripe.customers.del(customer.id);

    const events = await stripe.events.list().autoPagingToArray({ limit: 100 });
    expect(new Set(events.map((event) => event.type.split('.')[0]))).to.deep.equal(new Set(Object.keys(RETRIEVERS)));
    const newest = new Map<string, Stripe.Event>();
    for (const event of events) {
      const object = event.data.object as unknown as { id: string; object: string };
      const retrieved = await RETRIEVERS[event.type.split('.')[0]](stripe, object.id);
      expect({ id: retrieved.id, object: retrieved.object }, event.type).to.deep.equal({ id: object.id, object: object.object });
      // Listed newest first: the first event seen of an object is its newest.
      if (!newest.has(object.id)) newest.set(object.id, event);
    }
    for (const [id, event] of newest) {
      const retrieved = await RETRIEVERS[event.type.split('.')[0]](stripe, id);
      const expected = event.type === 'customer.deleted' ? { id, object: 'customer', deleted: true } : event.data.object;
      // An event leaves out an intent's client secret: it is for the customer's browser only.
      expect(withoutClientSecret(retrieved), `${event.type} of ${id}`).to.deep.equal(expected);
    }
  });

  it('saves a card with a setup intent and no payment, then charges it off-session', async () => {
    const stripe = client();
    const customer = await stripe.customers.create({ email: 'jenny@example.com' });
    const setupIntent = await stripe.setupIntents.create({ customer: customer.id, payment_method: 'pm_card_visa', confirm: true });
    expect(setupIntent).to.include({ object: 'setup_intent', status: 'succeeded', customer: customer.id, usage: 'off_session' });
    expect(setupIntent.client_secret).to.match(new RegExp(`^${setupIntent.id}_secret_`));
    const paymentMethod = setupIntent.payment_method as string;
    const saved = await stripe.customers.listPaymentMethods(customer.id, { type: 'card' });
    expect(saved.data.map((pm) => pm.id)).to.deep.equal([paymentMethod]);
    const paid = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      customer: customer.id,
      payment_method: paymentMethod,
      off_session: true,
      confirm: true,
    });
    expect(paid).to.include({ status: 'succeeded', payment_method: paymentMethod, amount_received: 2000 });
    const listed = await stripe.setupIntents.list({ customer: customer.id });
    expect(listed.data.map((si) => si.id)).to.deep.equal([setupIntent.id]);
    const retrieved = await stripe.setupIntents.retrieve(setupIntent.id, { expand: ['payment_method'] });
    expect((retrieved.payment_method as Stripe.PaymentMethod).card?.last4).to.equal('4242');
    // The card as the customer's default, read from the list of customers, expanded.
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: paymentMethod } });
    const customers = await stripe.customers.list({ expand: ['data.invoice_settings.default_payment_method'] });
    const byDefault = customers.data.map((c) => [c.id, (c.invoice_settings.default_payment_method as Stripe.PaymentMethod).id]);
    expect(byDefault).to.deep.equal([[customer.id, paymentMethod]]);
    // A refund of the payment names its customer and payment method, and expands them.
    const refund = await stripe.refunds.create({ payment_intent: paid.id, amount: 500 }, { idempotencyKey: 'refund-6735' });
    expect(refund).to.include({ customer: customer.id, payment_method: paymentMethod, customer_account: null });
    const expanded = await stripe.refunds.retrieve(refund.id, { expand: ['customer', 'payment_method'] });
    expect((expanded.customer as Stripe.Customer).email).to.equal('jenny@example.com');
    expect((expanded.payment_method as Stripe.PaymentMethod).card?.last4).to.equal('4242');
  });

  it('authenticates a card that asks on setup only, then charges it off-session without the customer', async () => {
    const stripe = client();
    const customer = await stripe.customers.create({ email: 'jenny@example.com' });
    const card = 'pm_card_authenticationRequiredSetupForOffSession';
    // Before any setup, the card asks for the customer: off-session it is declined.
    const refused = await stripe.paymentIntents
      .create({ amount: 2000, currency: 'usd', customer: customer.id, payment_method: card, off_session: true, confirm: true })
      .then(
        () => expect.fail('an off-session payment that needs authentication was answered as a success'),
        (thrown: unknown) => thrown as Stripe.errors.StripeCardError,
      );
    expect(refused).to.include({ statusCode: 402, code: 'authentication_required' });

    const created = await stripe.setupIntents.create({ customer: customer.id, usage: 'off_session' });
    const waiting = await stripe.setupIntents.confirm(created.id, { payment_method: card, return_url: 'https://shop.example.com/cards' });
    expect(waiting.status).to.equal('requires_action');
    const redirect = waiting.next_action!.redirect_to_url!;
    expect(redirect.return_url).to.equal('https://shop.example.com/cards');
    // The customer completes the authentication on the page the setup intent names.
    const page = new URL(redirect.url!);
    const answered = await fetch(new URL(page.pathname, page), {
      method: 'POST',
      body: new URLSearchParams({ client_secret: page.searchParams.get('client_secret')!, outcome: 'succeeded' }),
      redirect: 'manual',
    });
    expect(new URL(answered.headers.get('location')!).searchParams.get('redirect_status')).to.equal('succeeded');
    const succeeded = await stripe.setupIntents.retrieve(created.id);
    expect(succeeded.status).to.equal('succeeded');

    const paid = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      customer: customer.id,
      payment_method: succeeded.payment_method as string,
      off_session: true,
      confirm: true,
    });
    expect(paid.status).to.equal('succeeded');
  });

  it('raises a setup decline as a StripeCardError that carries the setup intent', async () => {
    const stripe = client();
    const created = await stripe.setupIntents.create({ automatic_payment_methods: { enabled: true, allow_redirects: 'never' } });
    const error = await stripe.setupIntents.confirm(created.id, { payment_method: 'pm_card_chargeDeclinedInsufficientFunds' }).then(
      () => expect.fail('a declined setup was answered as a success'),
      (thrown: unknown) => thrown as Stripe.errors.StripeCardError,
    );
    expect(error).to.be.an.instanceOf(Stripe.errors.StripeCardError);
    expect(error).to.include({ statusCode: 402, code: 'card_declined', decline_code: 'insufficient_funds' });
    expect(error.setup_intent).to.include({ id: created.id, status: 'requires_payment_method' });
    expect(error.setup_intent!.last_setup_error).to.include({ code: 'card_declined', decline_code: 'insufficient_funds' });
    const canceled = await stripe.setupIntents.cancel(created.id, { cancellation_reason: 'abandoned' });
    expect(canceled).to.include({ status: 'canceled', cancellation_reason: 'abandoned' });
  });

  it('saves a card for a customer and charges it off-session, as an integrator of that library does', async () => {
    const stripe = client();
    const customer = await stripe.customers.create({ email: 'jenny@example.com' });
    const card = await stripe.paymentMethods.create({
      type: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '314' },
      billing_details: { name: 'Jenny Rosen' },
    });
    expect(card.card).to.include({ brand: 'visa', last4: '4242', exp_year: 2034 });
    await stripe.paymentMethods.attach(card.id, { customer: customer.id });
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: card.id } });
    const saved = await stripe.customers.listPaymentMethods(customer.id, { type: 'card' });
    expect(saved.data.map((pm) => pm.id)).to.deep.equal([card.id]);
    const paid = await stripe.paymentIntents.create({
      amount: 2000,
      currency: 'usd',
      customer: customer.id,
      payment_method: card.id,
      off_session: true,
      confirm: true,
    });
    expect(paid).to.include({ status: 'succeeded', payment_method: card.id });

    const asking = await stripe.paymentMethods.create({ type: 'card', card: { token: 'tok_authenticationRequired' } });
    await stripe.paymentMethods.attach(asking.id, { customer: customer.id });
    const error = await stripe.paymentIntents
      .create({ amount: 2000, currency: 'usd', customer: customer.id, payment_method: asking.id, off_session: true, confirm: true })
      .then(
        () => expect.fail('an off-session payment that needs authentication was answered as a success'),
        (thrown: unknown) => thrown as Stripe.errors.StripeCardError,
      );
    expect(error).to.be.an.instanceOf(Stripe.errors.StripeCardError);
    expect(error).to.include({ statusCode: 402, code: 'authentication_required' });
    expect(error.payment_intent).to.include({ status: 'requires_payment_method' });
    expect((error.payment_intent!.last_payment_error!.payment_method as Stripe.PaymentMethod).id).to.equal(asking.id);

    const detached = await stripe.paymentMethods.detach(card.id);
    expect(detached.customer).to.equal(null);
    const after = (await stripe.customers.retrieve(customer.id)) as Stripe.Customer;
    expect(after.invoice_settings.default_payment_method).to.equal(null);
  });
});
