import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import Stripe from 'stripe';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { useTestServer, type TestServer } from '../helpers/test-server.js';

const run = promisify(execFile);
/** Debian's python3 with its `python3-stripe` package (not a pyenv or venv interpreter on PATH). */
const DEBIAN_PYTHON = '/usr/bin/python3';
const RETURN_URL = 'https://shop.example.com/checkout/done';

/**
 * The widely used payments API's Python library, as its quickstart uses it: an intent created with
 * automatic payment methods, then confirmed with a test card and a return URL. Prints the two
 * intents as JSON.
 */
const PYTHON_QUICKSTART = `
import json, sys, stripe
stripe.api_key, stripe.api_base, card = sys.argv[1], sys.argv[2], sys.argv[3]
intent = stripe.PaymentIntent.create(amount=1099, currency="usd", automatic_payment_methods={"enabled": True})
confirmed = stripe.PaymentIntent.confirm(intent.id, payment_method=card, return_url="${RETURN_URL}")
print(json.dumps({"created": intent.to_dict_recursive(), "confirmed": confirmed.to_dict_recursive()}))
`;

/**
 * The quickstart of the widely used payments API, as written, with its own client libraries
 * pointed at this server: `paymentIntents.create({ amount: 1099, currency: 'usd',
 * automatic_payment_methods: { enabled: true } })`, confirmed with a test card and a return URL.
 */
forEachDatabase('the quickstart of the widely used payments API', (engine) => {
  const server = useTestServer(engine, {}, { per: 'account' });

  function client(): Stripe {
    return new Stripe(server.apiKeys.first, {
      host: '127.0.0.1',
      port: Number(new URL(server.url).port),
      protocol: 'http',
      maxNetworkRetries: 0,
    });
  }

  const quickstart = (stripe: Stripe) =>
    stripe.paymentIntents.create({
      amount: 1099,
      currency: 'usd',
      automatic_payment_methods: { enabled: true },
    });

  it('creates the intent with automatic payment methods (cards here) and confirms it with pm_card_visa: succeeded', async () => {
    const stripe = client();
    const intent = await quickstart(stripe);
    expect(intent).to.include({
      status: 'requires_payment_method',
      amount: 1099,
      currency: 'usd',
      confirmation_method: 'automatic',
    });
    expect(intent.automatic_payment_methods).to.deep.equal({
      enabled: true,
      allow_redirects: 'always',
    });
    expect(intent.payment_method_types).to.deep.equal(['card']);
    expect(intent.client_secret).to.match(new RegExp(`^${intent.id}_secret_`));
    const confirmed = await stripe.paymentIntents.confirm(intent.id, {
      payment_method: 'pm_card_visa',
      return_url: RETURN_URL,
    });
    expect(confirmed).to.include({ status: 'succeeded', amount_received: 1099, next_action: null });
    const charge = await stripe.charges.retrieve(confirmed.latest_charge as string);
    expect(charge).to.include({
      paid: true,
      captured: true,
      amount: 1099,
      calculated_statement_descriptor: 'TEST',
    });
  });

  it("waits in requires_action for a card that asks for authentication, with a redirect to this server's 3-D Secure page", async () => {
    const stripe = client();
    const intent = await quickstart(stripe);
    const confirmed = await stripe.paymentIntents.confirm(intent.id, {
      payment_method: 'pm_card_authenticationRequired',
      return_url: RETURN_URL,
    });
    expect(confirmed.status).to.equal('requires_action');
    expect(confirmed.next_action?.type).to.equal('redirect_to_url');
    const redirect = confirmed.next_action!.redirect_to_url!;
    expect(redirect.return_url).to.equal(RETURN_URL);
    expect(redirect.url).to.equal(
      `${server.url}/authenticate/${intent.id}?client_secret=${encodeURIComponent(confirmed.client_secret!)}`,
    );
    const page = await fetch(redirect.url!);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(await page.text()).to.contain('$10.99');
  });

  it('with confirmation_method=manual, waits in requires_confirmation after the authentication, and the next confirmation pays', async () => {
    const stripe = client();
    const intent = await stripe.paymentIntents.create({
      amount: 1099,
      currency: 'usd',
      automatic_payment_methods: { enabled: true },
      confirmation_method: 'manual',
    });
    expect(intent.confirmation_method).to.equal('manual');
    const waiting = await stripe.paymentIntents.confirm(intent.id, {
      payment_method: 'pm_card_authenticationRequired',
    });
    expect(waiting.status).to.equal('requires_action');
    // The customer authenticates (the test helper standing in for the 3-D Secure page).
    const authenticated = await server.api.post(
      `/v1/test_helpers/payment_intents/${intent.id}/authenticate`,
      { outcome: 'succeeded' },
    );
    expect(authenticated.status).to.equal(200);
    expect(authenticated.body).to.include({
      status: 'requires_confirmation',
      latest_charge: null,
      next_action: null,
    });
    // The server confirms again: no second authentication is asked for.
    const paid = await stripe.paymentIntents.confirm(intent.id);
    expect(paid).to.include({
      status: 'succeeded',
      amount_received: 1099,
      payment_method: waiting.payment_method,
    });
    const charges = await stripe.charges.list({ payment_intent: intent.id });
    expect(charges.data.map((charge) => charge.status)).to.deep.equal(['succeeded']);
  });

  it("is run by that API's Python library (Debian's python3-stripe) too", async function () {
    requireProcesses(this);
    const python = (card: string) => pythonQuickstart(server, card);
    const { created, confirmed } = await python('pm_card_visa');
    expect(created).to.include({ status: 'requires_payment_method', amount: 1099 });
    expect(created.automatic_payment_methods).to.deep.equal({
      enabled: true,
      allow_redirects: 'always',
    });
    expect(confirmed).to.include({ id: created.id, status: 'succeeded', amount_received: 1099 });
    const waiting = (await python('pm_card_authenticationRequired')).confirmed;
    expect(waiting.status).to.equal('requires_action');
    expect(waiting.next_action).to.deep.include({ type: 'redirect_to_url' });
    expect(
      (waiting.next_action as { redirect_to_url: { url: string } }).redirect_to_url.url,
    ).to.match(new RegExp(`^${server.url}/authenticate/pi_`));
  });
});

interface PythonIntents {
  created: Record<string, unknown> & { id: string };
  confirmed: Record<string, unknown>;
}

async function pythonQuickstart(server: TestServer, card: string): Promise<PythonIntents> {
  const { stdout } = await run(
    DEBIAN_PYTHON,
    ['-c', PYTHON_QUICKSTART, server.apiKeys.first, server.url, card],
    { timeout: 20_000 },
  );
  return JSON.parse(stdout) as PythonIntents;
}
