/**
 * What README.md says of its shell commands' outputs, each checked right after the command runs.
 * A claim names its command by a part of it (on one line) that no other command has; the first
 * test fails when one matches no command or several, so a README edit cannot leave a claim behind.
 * Statuses in a trailing comment (`# 403 insufficient_scope`) are checked without a claim here.
 */
import { expect } from 'chai';
import { eventually } from '../helpers/eventually.js';
import type { Claim } from '../helpers/readme-runner.js';

const LIST = { object: 'list' };

/** Try it with curl. */
const TRY_IT: Claim[] = [
  {
    command: '-d email=jenny@example.com',
    says: 'Create a customer (form-encoded, bracket notation for metadata)',
    check: (run) => expect(run.json()).to.deep.include({ object: 'customer', email: 'jenny@example.com', name: 'Jenny Rosen', metadata: { order: '6735' } }),
  },
  {
    command: 'curl -s http://127.0.0.1:4242/v1/charges -H "Authorization: Bearer $API_KEY" -H "Idempotency-Key: order-6735-attempt-1"',
    says: 'Charge them, safely retryable with an Idempotency-Key',
    check: async (run, project) =>
      expect(run.json()).to.include({ object: 'charge', status: 'succeeded', amount: 2000, customer: await project.shell.variable('CUSTOMER') }),
  },
  {
    command: 'curl -s -i http://127.0.0.1:4242/v1/charges',
    says: 'The same request again: the stored response, no second charge, and `Idempotent-Replayed: true`',
    check: async (run, project) => {
      expect(run.headers['idempotent-replayed']).to.equal('true');
      const charges = await project.api(`/v1/charges?customer=${await project.shell.variable('CUSTOMER')}`);
      expect(charges.data.map((charge: { id: string }) => charge.id)).to.deep.equal([run.json().id]);
    },
  },
  {
    command: 'source=tok_chargeDeclinedInsufficientFunds',
    says: 'A declined card: 402 card_declined, decline_code insufficient_funds; the failed charge is kept',
    status: 402,
    check: async (run, project) => {
      const { error } = run.json();
      expect(error).to.include({ type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' });
      expect(await project.api(`/v1/charges/${error.charge}`)).to.include({ status: 'failed', amount: 500 });
    },
  },
  {
    command: /^curl -s "http:\/\/127\.0\.0\.1:4242\/v1\/charges\?limit=1" -H/,
    says: 'List with pagination, newest first, one charge a page: the declined charge with has_more true',
    check: (run) => {
      expect(run.json()).to.include({ ...LIST, has_more: true });
      expect(run.json().data).to.have.length(1);
      expect(run.json().data[0]).to.include({ status: 'failed', amount: 500 });
    },
  },
  {
    command: 'starting_after=$LAST',
    says: 'then the page after the last id, the charge of 2000 made before it',
    check: async (run, project) => {
      const { data } = run.json();
      expect(data, 'the page after the last id').to.have.length(1);
      expect(data[0].id).to.not.equal(await project.shell.variable('LAST'));
      expect(data[0]).to.include({ status: 'succeeded', amount: 2000 });
    },
  },
  {
    command: '-d charge=$CHARGE -d amount=1000',
    says: 'Refund part of a charge',
    check: async (run, project) => expect(run.json()).to.include({ object: 'refund', amount: 1000, charge: await project.shell.variable('CHARGE') }),
  },
  {
    command: /-d charge=\$CHARGE$/,
    says: 'then the rest',
    check: (run) => expect(run.json()).to.include({ object: 'refund', amount: 2000 }),
  },
  {
    command: '/v1/charges/$CHARGE -H',
    says: "the charge's amount_refunded and refunded follow",
    check: (run) => expect(run.json()).to.include({ amount: 3000, amount_refunded: 3000, refunded: true }),
  },
  {
    command: '/v1/payment_intents/$INTENT -H',
    says: 'a payment intent with capture_method=manual, confirmed at once, waits in requires_capture, holding amount_capturable',
    check: (run) => expect(run.json()).to.include({ status: 'requires_capture', capture_method: 'manual', amount_capturable: 2000 }),
  },
  {
    command: '-d amount_to_capture=1500',
    says: 'Capture part of it: succeeded, amount_received 1500; the other 500 is released (a refund of its charge)',
    check: async (run, project) => {
      expect(run.json()).to.include({ status: 'succeeded', amount_received: 1500 });
      const charge = await project.api(`/v1/charges/${run.json().latest_charge}`);
      expect(charge).to.include({ amount_captured: 1500, amount_refunded: 500 });
    },
  },
  {
    command: '-d payment_intent=$INTENT -d amount=500',
    says: 'Refund part of what was captured, naming the intent rather than its charge',
    check: async (run, project) => {
      const intent = await project.api(`/v1/payment_intents/${await project.shell.variable('INTENT')}`);
      expect(run.json()).to.include({ object: 'refund', amount: 500, payment_intent: intent.id, charge: intent.latest_charge });
    },
  },
  {
    command: 'events?object_id=$INTENT',
    says: "The intent's events (created, amount_capturable_updated, succeeded)",
    check: (run) =>
      expect(run.json().data.map((event: { type: string }) => event.type)).to.deep.equal([
        'payment_intent.succeeded',
        'payment_intent.amount_capturable_updated',
        'payment_intent.created',
      ]),
  },
  {
    command: '/v1/payment_intents/$HOLD/cancel',
    says: 'Or cancel an authorisation: the intent is canceled and its charge refunded in full, uncaptured',
    check: async (run, project) => {
      expect(run.json()).to.include({ status: 'canceled', cancellation_reason: 'requested_by_customer' });
      const charge = await project.api(`/v1/charges/${run.json().latest_charge}`);
      expect(charge).to.include({ captured: false, amount_refunded: 5000, refunded: true });
    },
  },
  {
    command: '/v1/charges/$HELD/capture',
    says: 'A charge can be only authorised too (capture=false), then captured, in full or in part',
    check: (run) => expect(run.json()).to.include({ amount: 1000, captured: true, amount_captured: 800 }),
  },
  {
    command: 'events?limit=3',
    says: 'Every change recorded as an event',
    check: (run) => {
      expect(run.json().data).to.have.length(3);
      for (const event of run.json().data) expect(event.object).to.equal('event');
    },
  },
  {
    command: 'application/vnd.api.v1+json',
    says: 'Versioning by media type instead of the /v1 prefix',
    check: (run) => {
      expect(run.json()).to.include({ ...LIST, has_more: true });
      expect(run.json().data.map((charge: { object: string }) => charge.object)).to.deep.equal(['charge']);
    },
  },
  {
    command: 'curl -s -u "$(cat data/admin-credentials)" http://127.0.0.1:4242/admin/accounts',
    says: 'The operator creates another account (HTTP Basic) and gets its first API key',
    check: (run) => {
      expect(run.json()).to.include({ object: 'account', name: 'Acme' });
      expect(run.json().api_key).to.match(/^sk_test_/);
    },
  },
];

/** Webhooks and test payment sources. */
const WEBHOOKS_AND_SOURCES: Claim[] = [
  {
    command: 'export WEBHOOK_SECRET=',
    says: 'register the receiver and keep its secret (shown only once)',
    check: async (_, project) => expect(await project.shell.variable('WEBHOOK_SECRET')).to.match(/^whsec_/),
  },
  {
    command: 'Bearer $(cat data/dev-api-key)" -d amount=2000',
    says: 'make a charge; the receiver prints payment_intent.created, charge.succeeded and payment_intent.succeeded, each with "signature valid"',
    check: async (run, project) => {
      expect(run.json()).to.include({ object: 'charge', status: 'succeeded' });
      const printed = () => project.receiverLog().split('\n');
      await eventually(() => {
        for (const type of ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded']) {
          const line = printed().find((text) => text.includes(` ${type} `));
          expect(line, `${type} in the receiver's output:\n${project.receiverLog()}`).to.include('signature valid');
        }
      }, 15_000);
      expect(project.receiverLog()).to.not.include('INVALID');
    },
  },
  {
    command: 'SCA=$(curl',
    says: 'pm_card_authenticationRequired: the intent waits in requires_action',
    check: async (_, project) =>
      expect(await project.api(`/v1/payment_intents/${await project.shell.variable('SCA')}`)).to.include({ status: 'requires_action' }),
  },
  {
    command: '/payment_intents/$SCA/authenticate',
    says: 'it completes the action (the payment goes on, as if confirmed again)',
    check: (run) => expect(run.json()).to.include({ status: 'succeeded', amount_received: 2000 }),
  },
];

/** Save a card, charge it later (docs/integrating.md). */
const SAVED_CARDS: Claim[] = [
  {
    command: '/v1/setup_intents/$SETUP/confirm',
    says: 'Confirm it with the test card that asks for authentication when it is set up: requires_action, next_action the page',
    check: async (run, project) => {
      const setup = await project.shell.variable('SETUP');
      expect(run.json()).to.include({ id: setup, status: 'requires_action', customer: await project.shell.variable('SHOPPER') });
      // An absolute URL on this server (no PUBLIC_URL: the address it listens on), opened as given.
      const page = new URL(run.json().next_action.redirect_to_url.url);
      expect(page.protocol + page.hostname).to.equal('http:127.0.0.1');
      expect(page.pathname).to.equal(`/authenticate/${setup}`);
      expect(page.searchParams.get('client_secret')).to.equal(await project.shell.variable('SETUP_SECRET'));
    },
  },
  {
    command: '/authenticate/$SETUP',
    says: 'the page sends the browser back to return_url with setup_intent, setup_intent_client_secret and redirect_status=succeeded',
    status: 303,
    check: async (_, project) => {
      const location = (await project.shell.variable('BACK')).replace(/^location:\s*/i, '').trim();
      const back = new URL(location);
      expect(back.origin + back.pathname).to.equal('https://shop.example.com/account/cards');
      expect(Object.fromEntries(back.searchParams)).to.deep.equal({
        setup_intent: await project.shell.variable('SETUP'),
        setup_intent_client_secret: await project.shell.variable('SETUP_SECRET'),
        redirect_status: 'succeeded',
      });
    },
  },
  {
    command: '/v1/customers/$SHOPPER/payment_methods',
    says: 'The setup intent succeeded: its payment_method is the saved card, attached to the customer',
    check: async (run, project) => {
      const card = await project.shell.variable('CARD');
      expect(await project.api(`/v1/setup_intents/${await project.shell.variable('SETUP')}`)).to.include({ status: 'succeeded' });
      expect(run.json().data.map((method: { id: string }) => method.id)).to.deep.equal([card]);
      expect(run.json().data[0].card).to.include({ brand: 'visa', last4: '3155' });
    },
  },
  {
    command: '-d payment_method=$CARD -d off_session=true',
    says: 'Later, without the customer: an off-session payment with the saved card succeeds at once',
    check: async (run, project) =>
      expect(run.json()).to.include({
        status: 'succeeded',
        amount_received: 4500,
        customer: await project.shell.variable('SHOPPER'),
        payment_method: await project.shell.variable('CARD'),
      }),
  },
  {
    command: '-d payment_method=$ALWAYS -d off_session=true',
    says: 'A card that asks on every payment: declined off-session, 402 authentication_required, the intent back in requires_payment_method',
    status: 402,
    check: (run) => {
      const { error } = run.json();
      expect(error).to.include({ type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required' });
      expect(error.payment_intent).to.include({ status: 'requires_payment_method' });
    },
  },
];

/** Authentication, GraphQL. */
const AUTHENTICATION: Claim[] = [
  {
    command: '/v1/customers -H "Authorization: Bearer $(cat data/dev-api-key)"',
    says: 'API key, as a bearer token',
    check: (run) => expect(run.json()).to.include(LIST),
  },
  {
    command: '/v1/customers -u "$(cat data/dev-api-key):"',
    says: 'API key, as the HTTP Basic user name',
    check: (run) => expect(run.json()).to.include(LIST),
  },
  {
    command: 'KEY=$(curl',
    says: 'The operator issues restricted keys (rk_test_…) that hold only their scopes',
    check: async (_, project) =>
      expect(JSON.parse(await project.shell.variable('KEY'))).to.deep.include({ type: 'restricted', scopes: ['charges:read'] }),
  },
  {
    command: /\/api_keys -u "\$ADMIN"$/,
    says: 'lists an account\'s keys (only a prefix and the last four characters are shown again): "redacted, newest first"',
    check: (run) => {
      const keys = run.json().data;
      // The account's secret key, then its publishable key, were made with it.
      expect(keys.map((key: { type: string }) => key.type)).to.deep.equal(['restricted', 'secret', 'publishable']);
      for (const key of keys) {
        expect(key).to.not.have.property('secret');
        expect(key.redacted).to.match(/^[rsp]k_test_…\w{4}$/);
      }
    },
  },
  {
    command: '/roll -u "$ADMIN" -d expires_in=3600',
    says: 'rolls them (a new key of the same kind and scopes)',
    check: async (run, project) => {
      expect(run.json()).to.deep.include({ type: 'restricted', scopes: ['charges:read'] });
      expect(run.json().id).to.not.equal(await project.shell.variable('KEY_ID'));
      expect(run.json().secret).to.match(/^rk_test_/);
    },
  },
  {
    command: 'curl -s -X DELETE',
    says: 'and revokes them',
    check: (run) => expect(run.json().revoked).to.be.a('number'),
  },
  {
    command: '/v1/api_keys -H "Authorization: Bearer $API_KEY" -d',
    says: 'A key holding api_keys:write manages the account\'s keys itself at /v1/api_keys',
    check: (run) => {
      expect(run.json()).to.deep.include({ object: 'api_key', type: 'restricted', scopes: ['customers:read'] });
      expect(run.json().secret).to.match(/^rk_test_/);
    },
  },
  {
    command: 'CLIENT=$(curl',
    says: 'its client_secret is shown once',
    check: async (_, project) => expect(JSON.parse(await project.shell.variable('CLIENT')).client_secret).to.be.a('string'),
  },
  {
    command: '/v1/customers -H "Authorization: Bearer $TOKEN"',
    says: '403: the token asked for charges:read only',
    check: (run) => expect(run.json().error).to.include({ code: 'insufficient_scope' }),
  },
  {
    command: '/.well-known/jwks.json',
    says: 'signed with ES256; the public keys are at /.well-known/jwks.json',
    check: (run) => expect(run.json().keys[0]).to.include({ kty: 'EC', alg: 'ES256' }),
  },
  {
    command: 'curl -s $URL -d "$BODY"',
    says: 'HTTP message signatures: a request signed with the signing key is accepted',
    check: (run) => expect(run.json()).to.include({ object: 'customer', email: 'signed@example.com' }),
  },
  {
    command: '/client_certificates',
    says: 'a client certificate registered to an account (by the operator, who gets its SHA-256 fingerprint)',
    check: (run) => {
      expect(run.json()).to.include({ object: 'client_certificate', subject: 'CN=globex-reporting' });
      expect(run.json().fingerprint_sha256).to.match(/^[0-9a-f]{64}$/);
    },
  },
  {
    command: '--cert tls/client.crt',
    says: 'a client certificate issued by that CA and registered to an account authenticates as that account',
    check: (run) => expect(run.json()).to.include(LIST),
  },
  {
    command: '-u "$(cat data/admin-credentials)" -d name=Acme',
    says: "The operator's HTTP Basic on /admin/…",
    check: (run) => expect(run.json()).to.include({ object: 'account', name: 'Acme' }),
  },
  {
    command: 'mutation { createCharge',
    says: 'GraphQL: the second door into the same services',
    check: (run) => {
      expect(run.json()).to.not.have.property('errors');
      expect(run.json().data.createCharge).to.include({ state: 'SUCCEEDED' });
    },
  },
];

/** The local loop with the `payments` command. */
const LOCAL_LOOP: Claim[] = [
  {
    command: 'npx payments trigger charge.succeeded',
    says: 'make the events happen: a charge; listen prints each event and the handler\'s answer; logs tail shows the requests',
    check: async (run, project) => {
      const [charge] = [run.json()].flat() as Array<{ id: string; object: string }>;
      expect(charge).to.include({ object: 'charge' });
      const [event] = (await project.api(`/v1/events?type=charge.succeeded&object_id=${charge.id}`)).data;
      await eventually(() => {
        expect(project.backgroundLog('listen')).to.match(new RegExp(`charge\\.succeeded {2}${event.id} → 200`));
        expect(project.receiverLog('handler')).to.match(new RegExp(`charge\\.succeeded ${event.id} signature valid`));
        expect(project.backgroundLog('logs')).to.match(/POST\s+\/v1\/charges\s+200/);
      }, 10_000);
    },
  },
];

export const README_CLAIMS: Claim[] = [...TRY_IT, ...LOCAL_LOOP, ...WEBHOOKS_AND_SOURCES, ...SAVED_CARDS, ...AUTHENTICATION];
