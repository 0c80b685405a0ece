/**
 * The API calls that `payments trigger` strings together: each makes one object with the typed
 * SDK and answers it, or throws the API's error as an {@link ApiFailure}. Declines are the one
 * expected non-2xx answer: those fixtures answer the failed object from the 402's error.
 */
import type { Charge, Customer, Order, PaymentIntent, PaymentsClient, SetupIntent, User } from '../../sdk/src/index.js';
import { ApiFailure, CommandFailure, dataOrThrow } from './failures.js';

/** Marks what a trigger makes, so that it can be found later among the account's objects. */
const METADATA = { triggered_by: 'payments-cli' };
const PAYMENT = { amount: 2000, currency: 'usd' } as const;

/** A new customer. */
export async function aCustomer(client: PaymentsClient): Promise<Customer> {
  return dataOrThrow(await client.createCustomer({ email: 'trigger@example.com', name: 'Jenny Rosen', metadata: METADATA }));
}

/** A charge of `source` (`tok_visa` succeeds); `capture: false` leaves it authorised only. */
export async function aCharge(client: PaymentsClient, source = 'tok_visa', capture = true): Promise<Charge> {
  return dataOrThrow(await client.createCharge({ ...PAYMENT, source, capture, metadata: METADATA }));
}

/** A declined charge (`tok_chargeDeclined`): the 402 is expected, and the failed charge it names is fetched. */
export async function aDeclinedCharge(client: PaymentsClient): Promise<Charge> {
  const answer = await client.createCharge({ ...PAYMENT, source: 'tok_chargeDeclined', metadata: METADATA });
  if (answer.status !== 402) throw unexpected('a declined charge', answer);
  return dataOrThrow(await client.retrieveCharge(answer.data.error.charge));
}

/** A payment intent made with these fields (confirmed at once when `confirm` is set). */
export async function aPaymentIntent(
  client: PaymentsClient,
  fields: { payment_method?: string; confirm?: boolean; capture_method?: 'automatic' | 'manual' } = {},
): Promise<PaymentIntent> {
  return dataOrThrow(await client.createPaymentIntent({ ...PAYMENT, ...fields, metadata: METADATA }));
}

/** A payment intent confirmed with a declined card: the 402 is expected; its error holds the intent. */
export async function aDeclinedPaymentIntent(client: PaymentsClient): Promise<PaymentIntent> {
  const answer = await client.createPaymentIntent({
    ...PAYMENT,
    payment_method: 'pm_card_chargeDeclined',
    confirm: true,
    metadata: METADATA,
  });
  if (answer.status !== 402) throw unexpected('a declined payment', answer);
  return answer.data.error.payment_intent;
}

/** A new user. */
export async function aUser(client: PaymentsClient): Promise<User> {
  return dataOrThrow(await client.createUser({ email: 'trigger@example.com', name: 'Jenny Rosen', metadata: METADATA }));
}

/** A new order of a new user: both are answered. */
export async function anOrder(client: PaymentsClient): Promise<[User, Order]> {
  const user = await aUser(client);
  const order = dataOrThrow(await client.createUserOrder(user.id, { ...PAYMENT, description: 'Triggered order', metadata: METADATA }));
  return [user, order];
}

/**
 * A 2xx where a decline was expected (the server's test cards changed?) is the CLI's failure; any
 * other error is the API's, thrown with its envelope.
 */
function unexpected(what: string, answer: { status: number; data: unknown }): Error {
  if (answer.status >= 200 && answer.status < 300) {
    return new CommandFailure(`expected ${what} (402), but the server answered ${answer.status}`);
  }
  return new ApiFailure(answer.status, answer.data);
}

/** A setup intent made with these fields (confirmed at once when `confirm` is set). */
export async function aSetupIntent(client: PaymentsClient, fields: { payment_method?: string; confirm?: boolean } = {}): Promise<SetupIntent> {
  return dataOrThrow(await client.createSetupIntent({ ...fields, metadata: METADATA }));
}

/** A setup intent confirmed with a declined card: the 402 is expected; its error holds the setup intent. */
export async function aDeclinedSetupIntent(client: PaymentsClient): Promise<SetupIntent> {
  const answer = await client.createSetupIntent({ payment_method: 'pm_card_chargeDeclined', confirm: true, metadata: METADATA });
  if (answer.status !== 402) throw unexpected('a declined setup', answer);
  return answer.data.error.setup_intent;
}
