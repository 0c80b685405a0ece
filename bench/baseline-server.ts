import express from 'express';

// The baselines: the same Express 5, one GET route and one POST route, each answering a
// charge-sized JSON body; no middleware but the POST's JSON parser, no validator, no database.
// Started by run.ts as its own process, on 127.0.0.1 and PORT.

const CHARGE = {
  id: 'ch_3MtwBwLkdIwHu7ix28a3tqPa',
  object: 'charge',
  created: 1_795_000_000,
  livemode: false,
  amount: 2000,
  amount_refunded: 0,
  currency: 'usd',
  customer: 'cus_NffrFeUfNV2Hib7ixN3Bt8Ua',
  description: null,
  metadata: {},
  paid: true,
  refunded: false,
  status: 'succeeded',
  failure_code: null,
  failure_message: null,
  payment_method_details: { type: 'card', card: { brand: 'visa', last4: '4242' } },
};

const app = express();
// The same two settings as the real app, so the difference measured is its middleware and work.
app.disable('x-powered-by');
app.set('etag', false);
app.get('/v1/charges/:id', (_req, res) => {
  res.json(CHARGE);
});
// A write compared with a bare write (issue 16): parse the same JSON body the POST scenario
// sends, and answer with what was parsed in it, so the parse is not work thrown away.
app.post('/v1/charges', express.json(), (req, res) => {
  const { amount, currency } = req.body as { amount: number; currency: string };
  res.json({ ...CHARGE, amount, currency });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
