import express from 'express';
import { CHARGE, CUSTOMER } from './bare-bodies.js';

// The baselines: the same Express 5, GET routes and POST routes, each answering a charge- or
// customer-sized JSON body; no middleware but the POSTs' body parsers, no validator, no database.
// Started by run.ts as its own process, on 127.0.0.1 and PORT.

const app = express();
// The same two settings as the real app, so the difference measured is its middleware and work.
app.disable('x-powered-by');
app.set('etag', false);
app.get('/v1/charges/:id', (_req, res) => {
  res.json(CHARGE);
});
app.get('/v1/customers/:id', (req, res) => {
  res.json({ ...CUSTOMER, id: req.params.id });
});
// A write compared with a bare write (issue 16): parse the same JSON body the POST scenario
// sends, and answer with what was parsed in it, so the parse is not work thrown away.
app.post('/v1/charges', express.json(), (req, res) => {
  const { amount, currency } = req.body as { amount: number; currency: string };
  res.json({ ...CHARGE, amount, currency });
});
// The form POST of the cost part (bench/cost.ts), parsed the same way and answered with what it sent.
app.post('/v1/customers', express.urlencoded({ extended: false }), (req, res) => {
  const { email, name } = req.body as { email: string; name: string };
  res.json({ ...CUSTOMER, email, name });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
