import fc from 'fast-check';
import { specOperations, validDraft, valueArb, resolve } from '/work/main/test/helpers/spec-requests.ts';
const fixture = { ids: { Customer: 'cus_1', Charge: 'ch_1', User: 'usr_1', Order: 'ord_1', WebhookEndpoint: 'we_1', Event: 'evt_1', WebhookDelivery: 'whd_1', Refund: 're_1' }, foreignId: 'cus_2', webhookUrl: 'https://127.0.0.1:9/hooks' };
for (const name of ['Metadata', 'Email', 'Phone', 'Metadata', 'Currency', 'ObjectId', 'WebhookUrl']) {
  const t = Date.now();
  fc.sample(valueArb({ $ref: `#/components/schemas/${name}` }, { encoding: 'json', required: true }), { numRuns: 20, seed: 1 });
  console.log(name, Date.now() - t);
}
for (const op of specOperations().slice(0, 3)) {
  const t = Date.now();
  fc.sample(validDraft(op, fixture), { numRuns: 20, seed: 1 });
  console.log(op.operationId, Date.now() - t);
}
