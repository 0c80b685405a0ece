import { createClient, type AcceptingUndefined, type PaymentsClient } from './client.js';
import type {
  ClientSecret,
  ConfirmPaymentIntentHeaders,
  ConfirmSetupIntentHeaders,
  confirmPaymentIntentResponse,
  confirmSetupIntentResponse,
  CreatePaymentMethodHeaders,
  createPaymentMethodResponse,
  PaymentIntentConfirmParams,
  PaymentMethodCreateParams,
  retrievePaymentIntentResponse,
  retrieveSetupIntentResponse,
  SetupIntentConfirmParams,
} from './generated/payments.js';

/**
 * The operations a publishable key may call: those whose `security` in the spec names the scheme
 * `publishableKey`. The server refuses every other one with 403; this client does not have them.
 */
export const PUBLISHABLE_OPERATIONS = [
  'createPaymentMethod',
  'retrievePaymentIntent',
  'confirmPaymentIntent',
  'retrieveSetupIntent',
  'confirmSetupIntent',
] as const satisfies ReadonlyArray<keyof PaymentsClient>;

/**
 * A call's parameters as a publishable key sends them: its object's `client_secret` required, and
 * none of `omitted` (the server refuses `expand` from a publishable key, which would read the
 * account's other objects, and a payment's `capture_method`, which only the merchant sets).
 */
type WithClientSecret<P, Omitted extends string = never> = AcceptingUndefined<
  Omit<P, 'client_secret' | 'expand' | Omitted>
> & { client_secret: ClientSecret };

/** What a browser (or an app) may do with the account's publishable key `pk_test_…`, and nothing else. */
export interface PublishableClient {
  /** Makes a card from the numbers the customer typed (`POST /v1/payment_methods`); attach it with a secret key or a confirmation. */
  createPaymentMethod(
    params: AcceptingUndefined<Omit<PaymentMethodCreateParams, 'expand'>>,
    headers?: AcceptingUndefined<CreatePaymentMethodHeaders>,
  ): Promise<createPaymentMethodResponse>;
  /** Reads a payment intent by its id and the `client_secret` your server handed the page. */
  retrievePaymentIntent(
    id: string,
    params: { client_secret: ClientSecret },
  ): Promise<retrievePaymentIntentResponse>;
  /** Confirms a payment intent with the customer's payment method; `next_action` says what the customer does next. */
  confirmPaymentIntent(
    id: string,
    params: WithClientSecret<PaymentIntentConfirmParams, 'capture_method'>,
    headers?: AcceptingUndefined<ConfirmPaymentIntentHeaders>,
  ): Promise<confirmPaymentIntentResponse>;
  /** Reads a setup intent by its id and its `client_secret`. */
  retrieveSetupIntent(
    id: string,
    params: { client_secret: ClientSecret },
  ): Promise<retrieveSetupIntentResponse>;
  /** Confirms a setup intent with the customer's card, saving it to the setup intent's customer. */
  confirmSetupIntent(
    id: string,
    params: WithClientSecret<SetupIntentConfirmParams>,
    headers?: AcceptingUndefined<ConfirmSetupIntentHeaders>,
  ): Promise<confirmSetupIntentResponse>;
}

export interface PublishableClientOptions {
  /** The account's publishable key, `pk_test_…` (`GET /v1/api_keys` lists it). */
  publishableKey: string;
  /** Where the server is; default `http://127.0.0.1:4242`. */
  baseUrl?: string;
  /** Retries after network errors, 409 (key in use), 429 and 5xx; default 2. */
  maxRetries?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
}

/**
 * A client for code that runs where a secret cannot be kept (a browser, a mobile app): it holds
 * the publishable key and offers only the calls that key may make, so any other call is a compile
 * error rather than a 403. A secret or restricted key is refused here, so that it is not shipped
 * to a browser by mistake.
 *
 * ```ts
 * const payments = createPublishableClient({ publishableKey: 'pk_test_…' });
 * const card = await payments.createPaymentMethod({ type: 'card', card: { number, exp_month, exp_year, cvc } });
 * ```
 */
export function createPublishableClient(options: PublishableClientOptions): PublishableClient {
  const { publishableKey, ...transport } = options;
  if (typeof publishableKey !== 'string' || !publishableKey.startsWith('pk_')) {
    throw new TypeError(
      'payments-api SDK: createPublishableClient takes a publishable key (pk_…); use createClient for a secret or restricted key',
    );
  }
  const full = createClient({ apiKey: publishableKey, ...transport });
  const client: Record<string, unknown> = {};
  for (const name of PUBLISHABLE_OPERATIONS) client[name] = full[name];
  return client as unknown as PublishableClient;
}
