import { execFile, execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import Stripe from 'stripe';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { useTestServer } from '../helpers/test-server.js';

const run = promisify(execFile);

/** Debian's python3 with its `python3-stripe` package (not a pyenv or venv interpreter on PATH). */
const DEBIAN_PYTHON = '/usr/bin/python3';

/** CI sets this: a missing browser or Python library fails the run instead of skipping it. */
const REQUIRED = process.env.REQUIRE_BROWSER === 'true';

/** The card that asks for authentication on session, and not off-session once set up for it. */
const AUTHENTICATE_UNLESS_SET_UP = 'pm_card_authenticationRequiredSetupForOffSession';

/**
 * An integrator's server code with the widely used payments API's Python library, unmodified,
 * pointed at this server: the documented flows to save a card and charge it later, split where
 * the customer's browser takes over. `python3 -c SCRIPT key api_base step '{json args}'` prints
 * the step's result as JSON.
 */
const PYTHON_FLOWS = `
import json, sys, stripe
stripe.api_key, stripe.api_base = sys.argv[1], sys.argv[2]
stripe.max_network_retries = 0
args = json.loads(sys.argv[4])

def waiting(intent):
    return {"id": intent.id, "status": intent.status, "client_secret": intent.client_secret,
            "url": intent.next_action.redirect_to_url.url}

def save_during_payment():
    customer = stripe.Customer.create(email="jenny@example.com")
    intent = stripe.PaymentIntent.create(amount=1099, currency="usd", customer=customer.id,
                                         setup_future_usage="off_session",
                                         automatic_payment_methods={"enabled": True})
    intent = stripe.PaymentIntent.confirm(intent.id, payment_method=args["card"],
                                          return_url=args["return_url"])
    return dict(waiting(intent), customer=customer.id)

def save_without_payment():
    customer = stripe.Customer.create(email="jenny@example.com")
    setup = stripe.SetupIntent.create(customer=customer.id, usage="off_session",
                                      automatic_payment_methods={"enabled": True})
    setup = stripe.SetupIntent.confirm(setup.id, payment_method=args["card"],
                                       return_url=args["return_url"])
    return dict(waiting(setup), customer=customer.id)

def saved_cards(customer):
    return [pm.id for pm in stripe.PaymentMethod.list(customer=customer, type="card").data]

def payment_after_redirect():
    intent = stripe.PaymentIntent.retrieve(args["payment_intent"])
    return {"status": intent.status, "payment_method": intent.payment_method,
            "setup_future_usage": intent.setup_future_usage, "saved": saved_cards(args["customer"])}

def setup_after_redirect():
    setup = stripe.SetupIntent.retrieve(args["setup_intent"])
    return {"status": setup.status, "payment_method": setup.payment_method,
            "saved": saved_cards(args["customer"])}

def save_card_that_always_asks():
    customer = stripe.Customer.create(email="jenny@example.com")
    card = stripe.PaymentMethod.create(type="card", card={"token": "tok_authenticationRequired"})
    stripe.PaymentMethod.attach(card.id, customer=customer.id)
    return {"customer": customer.id, "payment_method": card.id, "saved": saved_cards(customer.id)}

def charge_off_session():
    try:
        intent = stripe.PaymentIntent.create(amount=1099, currency="usd", customer=args["customer"],
                                             payment_method=args["payment_method"],
                                             off_session=True, confirm=True)
        return {"status": intent.status, "amount_received": intent.amount_received}
    except stripe.error.CardError as e:
        err = e.error
        # Error code will be authentication_required if authentication is needed
        intent = stripe.PaymentIntent.retrieve(err.payment_intent["id"])
        return {"declined": {"http_status": e.http_status, "code": err.code,
                             "payment_intent": intent.id, "status": intent.status,
                             "payment_method": err.payment_intent["last_payment_error"]["payment_method"]}}

def back_on_session():
    intent = stripe.PaymentIntent.confirm(args["payment_intent"], payment_method=args["payment_method"],
                                          return_url=args["return_url"])
    return waiting(intent)

def retrieve_payment():
    intent = stripe.PaymentIntent.retrieve(args["payment_intent"])
    return {"status": intent.status, "amount_received": intent.amount_received}

print(json.dumps(globals()[sys.argv[3]]()))
`;

/** Whether Debian's python3 has its `stripe` library; absent fails the run when REQUIRE_BROWSER=true. */
function pythonStripeAvailable(): boolean {
  try {
    execFileSync(DEBIAN_PYTHON, ['-c', 'import stripe'], { stdio: 'ignore' });
    return true;
  } catch {
    if (REQUIRED)
      throw new Error(
        `REQUIRE_BROWSER is set but ${DEBIAN_PYTHON} cannot import stripe (python3-stripe)`,
      );
    return false;
  }
}

/** The merchant's site the customer returns to: another origin, answering every path with a small page. */
async function startMerchantSite(): Promise<{ url: string; close(): Promise<void> }> {
  const site = http.createServer((_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>Shop</title><h1>Back at the shop</h1>'),
  );
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const { port } = site.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => site.close(() => resolve())),
  };
}

/** The parameters of the return page the customer landed on. */
type Landing = Record<string, string>;

describe('saving a card and charging it later, with the official clients and 3-D Secure in a browser', function () {
  let browser: Browser;
  let merchant: Awaited<ReturnType<typeof startMerchantSite>>;

  before(async function () {
    requireProcesses(this);
    if (!browserAvailable()) this.skip();
    this.timeout(60_000);
    browser = await launchBrowser();
    merchant = await startMerchantSite();
  });
  after(async () => {
    await browser?.close();
    await merchant?.close();
  });

  /**
   * The customer's part: the browser follows `redirectUrl` (the intent's `next_action`), the
   * customer clicks Complete, and lands back on the merchant's return page; its parameters.
   */
  async function authenticateInBrowser(redirectUrl: string): Promise<Landing> {
    const page = await browser.newPage();
    try {
      // As given, as Stripe.js and a merchant's redirect do: the URL is absolute.
      await page.goto(redirectUrl);
      await Promise.all([
        page.waitForURL(`${merchant.url}/**`),
        page.getByRole('button', { name: 'Complete' }).click(),
      ]);
      const back = new URL(page.url());
      expect(back.pathname).to.equal('/return');
      return Object.fromEntries(back.searchParams);
    } finally {
      await page.close();
    }
  }

  forEachDatabase('saved cards', (engine) => {
    const server = useTestServer(engine, {}, { per: 'account' });
    beforeEach(function () {
      this.currentTest?.timeout(60_000);
    });
    const returnUrl = () => `${merchant.url}/return`;

    describe('the Node client (stripe on npm)', () => {
      /** A client of the test's account, over plain HTTP to the test server. */
      function client(): Stripe {
        return new Stripe(server.apiKeys.first, {
          host: '127.0.0.1',
          port: Number(new URL(server.url).port),
          protocol: 'http',
          // A refused request must fail the test, not be retried behind its back.
          maxNetworkRetries: 0,
        });
      }

      /** The documented off-session charge of a saved card, without the customer. */
      function chargeOffSession(stripe: Stripe, customer: string, paymentMethod: string) {
        return stripe.paymentIntents.create({
          amount: 1099,
          currency: 'usd',
          customer,
          payment_method: paymentMethod,
          off_session: true,
          confirm: true,
        });
      }

      it('saves a card during a payment authenticated in the browser, then charges it off-session', async () => {
        const stripe = client();
        const customer = await stripe.customers.create({ email: 'jenny@example.com' });
        const created = await stripe.paymentIntents.create({
          amount: 1099,
          currency: 'usd',
          customer: customer.id,
          setup_future_usage: 'off_session',
          automatic_payment_methods: { enabled: true },
        });
        const waiting = await stripe.paymentIntents.confirm(created.id, {
          payment_method: AUTHENTICATE_UNLESS_SET_UP,
          return_url: returnUrl(),
        });
        expect(waiting).to.include({
          status: 'requires_action',
          setup_future_usage: 'off_session',
        });
        expect(waiting.next_action!.type).to.equal('redirect_to_url');
        const landing = await authenticateInBrowser(waiting.next_action!.redirect_to_url!.url!);
        expect(landing).to.deep.equal({
          payment_intent: created.id,
          payment_intent_client_secret: created.client_secret,
          redirect_status: 'succeeded',
        });
        const paid = await stripe.paymentIntents.retrieve(landing.payment_intent);
        expect(paid).to.include({ status: 'succeeded', amount_received: 1099 });
        const saved = await stripe.customers.listPaymentMethods(customer.id, { type: 'card' });
        expect(saved.data.map((pm) => pm.id)).to.deep.equal([paid.payment_method]);
        expect(saved.data[0]).to.include({ customer: customer.id });
        expect(saved.data[0].card).to.include({ last4: '3155' });

        const later = await chargeOffSession(stripe, customer.id, paid.payment_method as string);
        expect(later).to.include({ status: 'succeeded', amount_received: 1099 });
      });

      it('saves a card without a payment (setup intent) authenticated in the browser, then charges it off-session', async () => {
        const stripe = client();
        const customer = await stripe.customers.create({ email: 'jenny@example.com' });
        const created = await stripe.setupIntents.create({
          customer: customer.id,
          usage: 'off_session',
          automatic_payment_methods: { enabled: true },
        });
        const waiting = await stripe.setupIntents.confirm(created.id, {
          payment_method: AUTHENTICATE_UNLESS_SET_UP,
          return_url: returnUrl(),
        });
        expect(waiting.status).to.equal('requires_action');
        expect(waiting.next_action!.type).to.equal('redirect_to_url');
        const landing = await authenticateInBrowser(waiting.next_action!.redirect_to_url!.url!);
        expect(landing).to.deep.equal({
          setup_intent: created.id,
          setup_intent_client_secret: created.client_secret,
          redirect_status: 'succeeded',
        });
        const setUp = await stripe.setupIntents.retrieve(landing.setup_intent);
        expect(setUp.status).to.equal('succeeded');
        const saved = await stripe.customers.listPaymentMethods(customer.id, { type: 'card' });
        expect(saved.data.map((pm) => pm.id)).to.deep.equal([setUp.payment_method]);

        const later = await chargeOffSession(stripe, customer.id, setUp.payment_method as string);
        expect(later).to.include({ status: 'succeeded', amount_received: 1099 });
      });

      it('an off-session charge that needs authentication is declined, and the customer back on session completes it in the browser', async () => {
        const stripe = client();
        const customer = await stripe.customers.create({ email: 'jenny@example.com' });
        const card = await stripe.paymentMethods.create({
          type: 'card',
          card: { token: 'tok_authenticationRequired' },
        });
        await stripe.paymentMethods.attach(card.id, { customer: customer.id });
        const error = await chargeOffSession(stripe, customer.id, card.id).then(
          () =>
            expect.fail(
              'an off-session payment that needs authentication was answered as a success',
            ),
          (thrown: unknown) => thrown as Stripe.errors.StripeCardError,
        );
        expect(error).to.be.an.instanceOf(Stripe.errors.StripeCardError);
        expect(error).to.include({ statusCode: 402, code: 'authentication_required' });
        // As the docs read it: the intent from the error's raw body, retrieved again.
        const declined = await stripe.paymentIntents.retrieve(
          (error.raw as { payment_intent: { id: string } }).payment_intent.id,
        );
        expect(declined.status).to.equal('requires_payment_method');
        const lastError = error.payment_intent!.last_payment_error!;
        expect(lastError.code).to.equal('authentication_required');
        expect(lastError.payment_method).to.include({ object: 'payment_method', id: card.id });

        // The customer comes back: the same intent, confirmed on session with the card that asked.
        const waiting = await stripe.paymentIntents.confirm(declined.id, {
          payment_method: (lastError.payment_method as Stripe.PaymentMethod).id,
          return_url: returnUrl(),
        });
        expect(waiting.status).to.equal('requires_action');
        const landing = await authenticateInBrowser(waiting.next_action!.redirect_to_url!.url!);
        expect(landing).to.include({ payment_intent: declined.id, redirect_status: 'succeeded' });
        const paid = await stripe.paymentIntents.retrieve(declined.id);
        expect(paid).to.include({
          status: 'succeeded',
          amount_received: 1099,
          payment_method: card.id,
        });
      });
    });

    describe("the Python client (Debian's python3-stripe)", () => {
      before(function () {
        if (!pythonStripeAvailable()) this.skip();
      });

      /** Runs one step of the Python flows with `args`; its printed JSON. */
      async function python(step: string, args: Record<string, unknown> = {}): Promise<any> {
        const { stdout } = await run(DEBIAN_PYTHON, [
          '-c',
          PYTHON_FLOWS,
          server.apiKeys.first,
          server.url,
          step,
          JSON.stringify(args),
        ]);
        return JSON.parse(stdout);
      }

      it('saves a card during a payment authenticated in the browser, then charges it off-session', async () => {
        const waiting = await python('save_during_payment', {
          card: AUTHENTICATE_UNLESS_SET_UP,
          return_url: returnUrl(),
        });
        expect(waiting.status).to.equal('requires_action');
        const landing = await authenticateInBrowser(waiting.url);
        expect(landing).to.deep.equal({
          payment_intent: waiting.id,
          payment_intent_client_secret: waiting.client_secret,
          redirect_status: 'succeeded',
        });
        const after = await python('payment_after_redirect', {
          payment_intent: landing.payment_intent,
          customer: waiting.customer,
        });
        expect(after).to.deep.include({
          status: 'succeeded',
          setup_future_usage: 'off_session',
          saved: [after.payment_method],
        });
        const later = await python('charge_off_session', {
          customer: waiting.customer,
          payment_method: after.payment_method,
        });
        expect(later).to.deep.equal({ status: 'succeeded', amount_received: 1099 });
      });

      it('saves a card without a payment (setup intent) authenticated in the browser, then charges it off-session', async () => {
        const waiting = await python('save_without_payment', {
          card: AUTHENTICATE_UNLESS_SET_UP,
          return_url: returnUrl(),
        });
        expect(waiting.status).to.equal('requires_action');
        const landing = await authenticateInBrowser(waiting.url);
        expect(landing).to.deep.equal({
          setup_intent: waiting.id,
          setup_intent_client_secret: waiting.client_secret,
          redirect_status: 'succeeded',
        });
        const after = await python('setup_after_redirect', {
          setup_intent: landing.setup_intent,
          customer: waiting.customer,
        });
        expect(after).to.deep.include({ status: 'succeeded', saved: [after.payment_method] });
        const later = await python('charge_off_session', {
          customer: waiting.customer,
          payment_method: after.payment_method,
        });
        expect(later).to.deep.equal({ status: 'succeeded', amount_received: 1099 });
      });

      it('an off-session charge that needs authentication is declined, and the customer back on session completes it in the browser', async () => {
        const saved = await python('save_card_that_always_asks');
        expect(saved.saved).to.deep.equal([saved.payment_method]);
        const { declined } = await python('charge_off_session', {
          customer: saved.customer,
          payment_method: saved.payment_method,
        });
        expect(declined).to.deep.include({
          http_status: 402,
          code: 'authentication_required',
          status: 'requires_payment_method',
        });
        expect(declined.payment_method).to.include({
          object: 'payment_method',
          id: saved.payment_method,
        });

        const waiting = await python('back_on_session', {
          payment_intent: declined.payment_intent,
          payment_method: declined.payment_method.id,
          return_url: returnUrl(),
        });
        expect(waiting.status).to.equal('requires_action');
        const landing = await authenticateInBrowser(waiting.url);
        expect(landing).to.include({
          payment_intent: declined.payment_intent,
          redirect_status: 'succeeded',
        });
        expect(
          await python('retrieve_payment', { payment_intent: declined.payment_intent }),
        ).to.deep.equal({
          status: 'succeeded',
          amount_received: 1099,
        });
      });
    });
  });
});
