import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import Stripe from 'stripe';
import { loadConfig } from '../../src/config.js';
import { startCaptureReceiver, type CapturedRequest } from '../helpers/capture-receiver.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { useTestServer, type TestServer } from '../helpers/test-server.js';

const run = promisify(execFile);
const FAST = [0.05, 0.05, 0.05];
/** Debian's python3 with its `python3-stripe` package (not a pyenv or venv interpreter on PATH). */
const DEBIAN_PYTHON = '/usr/bin/python3';

/**
 * What the widely used payments API's Python library makes of a delivery, verified with its own
 * header name: the event's id, or the library's error.
 */
const PYTHON_VERIFIER = `
import sys, stripe
payload, header, secret = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    print(stripe.Webhook.construct_event(payload, header, secret)["id"])
except stripe.error.SignatureVerificationError as error:
    print("refused:", error)
    sys.exit(1)
`;

async function pythonVerifies(request: CapturedRequest, secret: string): Promise<string> {
  const header = request.headers['stripe-signature'] as string;
  const { stdout } = await run(DEBIAN_PYTHON, [
    '-c',
    PYTHON_VERIFIER,
    request.body,
    header,
    secret,
  ]);
  return stdout.trim();
}

/** An endpoint on `url` for `customer.created`, with `fields` (and the secret its creation shows). */
async function anEndpoint(server: TestServer, url: string, fields: Record<string, unknown> = {}) {
  const res = await server.api.post('/v1/webhook_endpoints', {
    url,
    enabled_events: ['customer.created'],
    ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body as { id: string; secret: string; signature_header_aliases: string[] | null };
}

/** Makes a customer and waits for its event's delivery to `receiver`. */
async function oneDelivery(
  server: TestServer,
  receiver: Awaited<ReturnType<typeof startCaptureReceiver>>,
) {
  const customer = await server.api.post('/v1/customers', { email: 'alias@example.com' });
  expect(customer.status).to.equal(200);
  const [request] = await receiver.waitFor(1);
  return request;
}

forEachDatabase('signature header aliases', (engine) => {
  const stripe = new Stripe('sk_test_unused', { maxNetworkRetries: 0 });
  let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  beforeEach(async () => {
    receiver = await startCaptureReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  describe('on a server that sends none by default', () => {
    // One server for the describe: each test registers its own endpoint to its own receiver.
    const server = useTestServer(
      engine,
      { webhookAllowPrivateNetworks: true, webhookWorker: { retryScheduleSeconds: FAST } },
      { per: 'suite' },
    );

    it("carries the signature as Stripe-Signature too when the endpoint asks, which that API's Node library verifies", async () => {
      const endpoint = await anEndpoint(server, receiver.url, {
        signature_header_aliases: ['Stripe-Signature'],
      });
      expect(endpoint.signature_header_aliases).to.deep.equal(['Stripe-Signature']);
      const request = await oneDelivery(server, receiver);
      expect(request.headers['stripe-signature']).to.equal(request.headers['service-signature']);
      const event = stripe.webhooks.constructEvent(
        request.body,
        request.headers['stripe-signature'] as string,
        endpoint.secret,
      );
      expect(event).to.include({ object: 'event', type: 'customer.created' });
      expect(() =>
        stripe.webhooks.constructEvent(
          request.body,
          request.headers['stripe-signature'] as string,
          'whsec_wrong',
        ),
      ).to.throw(/signature/i);
    });

    it("is verified by that API's Python library (Debian's python3-stripe) under its own header name", async function () {
      requireProcesses(this);
      const endpoint = await anEndpoint(server, receiver.url, {
        signature_header_aliases: ['Stripe-Signature'],
      });
      const request = await oneDelivery(server, receiver);
      const eventId = JSON.parse(request.body).id as string;
      expect(await pythonVerifies(request, endpoint.secret)).to.equal(eventId);
      const refused = await pythonVerifies(request, 'whsec_wrong').catch(
        (error: { code: number; stdout: string }) => error,
      );
      expect(refused)
        .to.include({ code: 1 })
        .and.to.have.property('stdout')
        .that.matches(/^refused:/);
    });

    it('sends only Service-Signature to an endpoint that does not ask, and follows an update (form or JSON)', async () => {
      const endpoint = await anEndpoint(server, receiver.url);
      expect(endpoint.signature_header_aliases).to.equal(null);
      const plain = await oneDelivery(server, receiver);
      expect(plain.headers).to.not.have.property('stripe-signature');
      expect(plain.headers['service-signature']).to.match(/^t=\d+,v1=[0-9a-f]{64}$/);

      const asked = await server.api.post(
        `/v1/webhook_endpoints/${endpoint.id}`,
        { signature_header_aliases: ['Stripe-Signature'] },
        { form: true },
      );
      expect(asked.status, JSON.stringify(asked.body)).to.equal(200);
      expect(asked.body.signature_header_aliases).to.deep.equal(['Stripe-Signature']);
      receiver.received.length = 0;
      const aliased = await oneDelivery(server, receiver);
      expect(aliased.headers['stripe-signature']).to.equal(aliased.headers['service-signature']);

      const cleared = await server.api.patch(`/v1/webhook_endpoints/${endpoint.id}`, {
        signature_header_aliases: null,
      });
      expect(cleared.body.signature_header_aliases).to.equal(null);
    });

    it('refuses a header name the contract does not offer, naming the parameter, and creates nothing', async () => {
      const before = (await server.api.get('/v1/webhook_endpoints?limit=100')).body.data.length;
      const res = await server.api.post('/v1/webhook_endpoints', {
        url: receiver.url,
        enabled_events: ['customer.created'],
        signature_header_aliases: ['X-Signature'],
      });
      expect(res.status).to.equal(400);
      expect(res.body.error.param).to.match(/^signature_header_aliases/);
      expect((await server.api.get('/v1/webhook_endpoints?limit=100')).body.data).to.have.length(
        before,
      );
    });
  });

  describe('on a server with WEBHOOK_SIGNATURE_HEADER_ALIASES=Stripe-Signature', () => {
    const server = useTestServer(engine, {
      webhookAllowPrivateNetworks: true,
      webhookWorker: { retryScheduleSeconds: FAST, signatureHeaderAliases: ['Stripe-Signature'] },
    });

    it('sends it to an endpoint that leaves the choice to the server, and not to one that chose none', async () => {
      const following = await anEndpoint(server, receiver.url);
      const request = await oneDelivery(server, receiver);
      expect(
        stripe.webhooks.constructEvent(
          request.body,
          request.headers['stripe-signature'] as string,
          following.secret,
        ).type,
      ).to.equal('customer.created');

      await server.api.post(`/v1/webhook_endpoints/${following.id}`, {
        signature_header_aliases: [],
      });
      receiver.received.length = 0;
      const optedOut = await oneDelivery(server, receiver);
      expect(optedOut.headers).to.not.have.property('stripe-signature');
    });
  });
});

describe('WEBHOOK_SIGNATURE_HEADER_ALIASES', () => {
  it('takes the names the contract offers, and refuses any other at start, naming it', () => {
    expect(
      loadConfig({ WEBHOOK_SIGNATURE_HEADER_ALIASES: 'Stripe-Signature' })
        .webhookSignatureHeaderAliases,
    ).to.deep.equal(['Stripe-Signature']);
    expect(loadConfig({}).webhookSignatureHeaderAliases).to.deep.equal([]);
    expect(() =>
      loadConfig({ WEBHOOK_SIGNATURE_HEADER_ALIASES: 'Stripe-Signature,X-Sig' }),
    ).to.throw(/WEBHOOK_SIGNATURE_HEADER_ALIASES.*X-Sig/);
  });
});
