/**
 * The objects the bare routes answer (bench/baseline-server.ts, bench/bare-http-server.ts): the
 * same shapes and sizes as the server's, so that what the bench compares is the work around them.
 */

export const CHARGE = {
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

export const CUSTOMER = {
  id: 'cus_NffrFeUfNV2Hib7ixN3Bt8Ua',
  object: 'customer',
  created: 1_795_000_000,
  livemode: false,
  email: 'bench0@example.com',
  name: 'Bench',
  description: null,
  phone: null,
  metadata: {},
  invoice_settings: { default_payment_method: null },
};
