import { expect } from 'chai';
import Stripe from 'stripe';
import { purgeReceiptMails } from '../../src/receipts/receipt-mails.repo.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startSmtpCapture, type CapturedMail } from '../helpers/smtp-capture.js';
import { startTestServer, useTestServer, type TestServer, type TestServerOptions } from '../helpers/test-server.js';

type SmtpCapture = Awaited<ReturnType<typeof startSmtpCapture>>;

// Absolute, on PUBLIC_URL (the server below sets it): a link in the merchant's own e-mail must work.
const RECEIPT_URL = /^https:\/\/pay\.example\.test\/receipts\/ch_[0-9A-Za-z]+\/rcpt_[0-9A-Za-z]{28}$/;

/** The one mail sent to `to`, once it has arrived. */
async function mailTo(smtp: SmtpCapture, to: string, count = 1): Promise<CapturedMail[]> {
  let mails: CapturedMail[] = [];
  await eventually(() => {
    mails = smtp.messages.filter((mail) => mail.to.includes(to));
    expect(mails).to.have.length(count);
  });
  return mails;
}

/** A quoted-printable mail body as text (soft line breaks joined, `=XX` decoded). */
function bodyOf(mail: CapturedMail): string {
  const body = mail.raw.slice(mail.raw.indexOf('\r\n\r\n') + 4).replace(/=\r\n/g, '');
  return Buffer.from(body.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
}

forEachDatabase('receipts: receipt_url, receipt_email and receipt_number', (engine) => {
  let smtp: SmtpCapture;
  const options: TestServerOptions = {
    webhookWorker: { retryScheduleSeconds: [60] },
    receiptMailIntervalMs: 20,
    publicUrl: 'https://pay.example.test',
  };
  before(async () => {
    smtp = await startSmtpCapture();
    options.webhookWorker!.smtpUrl = smtp.url;
  });
  after(async () => {
    await smtp?.close();
  });
  const server = useTestServer(engine, options, { per: 'suite' });

  it('a paid charge has a receipt page; a failed one has none; neither has a number before a receipt is sent', async () => {
    const paid = (await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa' })).body;
    expect(paid.receipt_url).to.match(RECEIPT_URL);
    expect(paid.receipt_url).to.contain(`/receipts/${paid.id}/`);
    expect(paid).to.include({ receipt_email: null, receipt_number: null });
    const declined = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_chargeDeclined' });
    expect(declined.status).to.equal(402);
    const failed = (await server.api.get(`/v1/charges/${declined.body.error.charge}`)).body;
    expect(failed).to.include({ status: 'failed', receipt_url: null, receipt_email: null, receipt_number: null });
    // The page's address is the charge's, unchanged on every read.
    expect((await server.api.get(`/v1/charges/${paid.id}`)).body.receipt_url).to.equal(paid.receipt_url);
  });

  it('charge create with receipt_email e-mails the receipt over SMTP after the commit, with its number and an absolute link', async () => {
    const to = 'jenny.create@example.com';
    const charge = (await server.api.post('/v1/charges', { amount: 123456, currency: 'usd', source: 'tok_visa', receipt_email: to }, { form: true }))
      .body;
    expect(charge.receipt_email).to.equal(to);
    expect(charge.receipt_number).to.match(/^\d{4}-\d{4}$/);
    const [mail] = await mailTo(smtp, to);
    expect(mail.from).to.equal('hooks@test');
    expect(mail.raw).to.match(/^Subject: Your receipt from Test #\d{4}-\d{4}/m);
    const body = bodyOf(mail);
    expect(body).to.contain(`Receipt from Test #${charge.receipt_number}`);
    expect(body).to.contain('Amount paid: $1,234.56 USD');
    expect(body).to.contain('Paid with: Visa •••• 4242');
    expect(body).to.contain(charge.receipt_url);
    // Marked sent once the relay has taken it: just after it arrives.
    await eventually(async () => {
      const rows = await server.db.all('SELECT status, attempts FROM receipt_mails WHERE charge_id = ?', [charge.id]);
      expect(rows).to.deep.equal([{ status: 'sent', attempts: 1 }]);
    });
  });

  it('a payment intent carries receipt_email (create, update, confirm) to its charge; the receipt goes when the charge is captured', async () => {
    const to = 'jenny.intent@example.com';
    const created = (await server.api.post('/v1/payment_intents', { amount: 5000, currency: 'eur', receipt_email: 'first@example.com' })).body;
    expect(created.receipt_email).to.equal('first@example.com');
    const updated = (await server.api.post(`/v1/payment_intents/${created.id}`, { receipt_email: null })).body;
    expect(updated.receipt_email).to.equal(null);
    const confirmed = (
      await server.api.post(`/v1/payment_intents/${created.id}/confirm`, { payment_method: 'pm_card_visa', capture_method: 'manual', receipt_email: to })
    ).body;
    expect(confirmed).to.include({ status: 'requires_capture', receipt_email: to });
    const authorised = (await server.api.get(`/v1/charges/${confirmed.latest_charge}`)).body;
    expect(authorised).to.include({ receipt_email: to, receipt_number: null });
    expect(authorised.receipt_url).to.match(RECEIPT_URL);
    await server.api.post(`/v1/payment_intents/${created.id}/capture`, { amount_to_capture: 4000 });
    const [mail] = await mailTo(smtp, to);
    expect(bodyOf(mail)).to.contain('Amount paid: €50.00 EUR');
    const captured = (await server.api.get(`/v1/charges/${confirmed.latest_charge}`)).body;
    expect(captured.receipt_number).to.match(/^\d{4}-\d{4}$/);
    expect(smtp.messages.filter((m) => m.to.includes('first@example.com'))).to.have.length(0);
  });

  it('capturing a charge with receipt_email sends the receipt there', async () => {
    const to = 'jenny.capture@example.com';
    const charge = (await server.api.post('/v1/charges', { amount: 700, currency: 'usd', source: 'tok_mastercard', capture: false })).body;
    const captured = (await server.api.post(`/v1/charges/${charge.id}/capture`, { receipt_email: to })).body;
    expect(captured).to.include({ captured: true, receipt_email: to });
    const [mail] = await mailTo(smtp, to);
    expect(bodyOf(mail)).to.contain('Paid with: Mastercard •••• 4444');
  });

  it('setting receipt_email on a paid charge sends the receipt (again) to the new address, keeping its number; charge.updated says so', async () => {
    const first = 'jenny.before@example.com';
    const second = 'jenny.after@example.com';
    const charge = (await server.api.post('/v1/charges', { amount: 900, currency: 'jpy', source: 'tok_visa', receipt_email: first })).body;
    await mailTo(smtp, first);
    const updated = (await server.api.post(`/v1/charges/${charge.id}`, { receipt_email: second })).body;
    expect(updated).to.include({ receipt_email: second, receipt_number: charge.receipt_number });
    const [mail] = await mailTo(smtp, second);
    expect(bodyOf(mail)).to.contain('Amount paid: ¥900 JPY');
    const events = (await server.api.get('/v1/events?type=charge.updated')).body.data;
    const event = events.find((e: { data: { object: { id: string } } }) => e.data.object.id === charge.id);
    expect(event.data.previous_attributes).to.deep.equal({ receipt_email: first });
    // Only a description: nothing is sent.
    await server.api.post(`/v1/charges/${charge.id}`, { description: 'Order 6735' });
    const rows = await server.db.all('SELECT seq FROM receipt_mails WHERE charge_id = ?', [charge.id]);
    expect(rows).to.have.length(2);
  });

  it('an address that is not one is refused with its param, and nothing is charged', async () => {
    const refused = await server.api.post('/v1/charges', { amount: 900, currency: 'usd', source: 'tok_visa', receipt_email: 'not an address' });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.param).to.equal('receipt_email');
  });

  it('the official client library reads receipt_url and sets receipt_email', async () => {
    const stripe = new Stripe(server.apiKeys.first, {
      host: '127.0.0.1',
      port: Number(new URL(server.url).port),
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    const to = 'jenny.client@example.com';
    const intent = await stripe.paymentIntents.create({ amount: 2500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true, receipt_email: to });
    expect(intent.receipt_email).to.equal(to);
    const charge = await stripe.charges.retrieve(intent.latest_charge as string);
    expect(charge.receipt_url).to.match(RECEIPT_URL);
    expect(charge.receipt_email).to.equal(to);
    expect(charge.receipt_number).to.match(/^\d{4}-\d{4}$/);
    await mailTo(smtp, to);
    const updated = await stripe.charges.update(charge.id, { receipt_email: 'jenny.client2@example.com' });
    expect(updated.receipt_email).to.equal('jenny.client2@example.com');
    await mailTo(smtp, 'jenny.client2@example.com');
    // The page opens at the address the client read, with no key (PUBLIC_URL names a proxy this
    // test has not: its path is asked of the server itself).
    const page = await fetch(new URL(new URL(charge.receipt_url!).pathname, server.url));
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('$25.00 USD');
  });

  it('GraphQL shows the receipt fields and sets receiptEmail', async () => {
    const to = 'jenny.graphql@example.com';
    const res = await server.api.post('/graphql', {
      query: `mutation { createCharge(input: {amount: 1500, currency: "usd", source: "tok_visa", receiptEmail: "${to}"}) { id receiptEmail receiptNumber receiptUrl } }`,
    });
    const charge = res.body.data.createCharge;
    expect(charge.receiptEmail).to.equal(to);
    expect(charge.receiptNumber).to.match(/^\d{4}-\d{4}$/);
    expect(charge.receiptUrl).to.match(RECEIPT_URL);
    await mailTo(smtp, to);
    const authorised = (await server.api.post('/v1/charges', { amount: 800, currency: 'usd', source: 'tok_visa', capture: false })).body;
    const captured = await server.api.post('/graphql', {
      query: `mutation { captureCharge(id: "${authorised.id}", receiptEmail: "jenny.graphql2@example.com") { captured receiptEmail } }`,
    });
    expect(captured.body.data.captureCharge).to.deep.equal({ captured: true, receiptEmail: 'jenny.graphql2@example.com' });
    await mailTo(smtp, 'jenny.graphql2@example.com');
  });

  it('the purge forgets the e-mails done with, never one still to send', async () => {
    await server.db.run(
      "INSERT INTO receipt_mails (account_id, charge_id, email, status, attempts, next_attempt_at, created) VALUES (?, 'ch_x', 'a@example.com', 'pending', 0, ?, 0)",
      [server.accountIds.first, Number.MAX_SAFE_INTEGER],
    );
    await purgeReceiptMails(server.db, server.clock.nowMs() + 1);
    const left = await server.db.all<{ status: string; charge_id: string }>('SELECT status, charge_id FROM receipt_mails');
    expect(left).to.deep.equal([{ status: 'pending', charge_id: 'ch_x' }]);
  });
});

forEachDatabase('receipt e-mails when the mail relay fails', (engine) => {
  let server: TestServer;
  after(async () => {
    await server?.close();
  });

  it('answers the request all the same, and records the failure for a later attempt', async function () {
    this.timeout(30_000);
    // A relay that is not there: nothing listens on the port of a closed capture server.
    const gone = await startSmtpCapture();
    await gone.close();
    server = await startTestServer(engine, { webhookWorker: { retryScheduleSeconds: [60], smtpUrl: gone.url }, receiptMailIntervalMs: 20 });
    const charge = await server.api.post('/v1/charges', { amount: 2000, currency: 'usd', source: 'tok_visa', receipt_email: 'jenny@example.com' });
    expect(charge.status).to.equal(200);
    await eventually(async () => {
      const [row] = await server.db.all<{ status: string; attempts: number; last_error: string | null; next_attempt_at: number }>(
        'SELECT status, attempts, last_error, next_attempt_at FROM receipt_mails WHERE charge_id = ?',
        [charge.body.id],
      );
      expect(row).to.include({ status: 'pending', attempts: 1 });
      expect(row.last_error).to.be.a('string');
      expect(Number(row.next_attempt_at)).to.be.greaterThan(server.clock.nowMs());
    }, 10_000);
  });
});
