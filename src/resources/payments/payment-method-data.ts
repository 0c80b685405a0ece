import { ApiError } from '../../domain/errors.js';
import type { RequestContext } from '../../operations/operations.js';
import { allParamsRead } from '../shared/params.js';
import {
  NO_BILLING_DETAILS,
  type BillingDetails,
  type PaymentMethodCreateParams,
} from './payment-methods.mapper.js';
import { insertCardPaymentMethod, type UsablePaymentMethod } from './payment-methods.js';
import {
  findTestCardByNumber,
  findTestCardByReference,
  passesLuhn,
  type TestCard,
} from './test-sources.js';

type CardParams = NonNullable<PaymentMethodCreateParams['card']>;
/** A payment method's fields: `POST /v1/payment_methods`, or an intent's `payment_method_data`. */
type PaymentMethodData = Omit<PaymentMethodCreateParams, 'card' | 'expand'> & { card?: CardParams };
type BillingDetailsParams = NonNullable<PaymentMethodCreateParams['billing_details']>;

/**
 * A new payment method made of a payment method's fields: `POST /v1/payment_methods`, and an
 * intent's `payment_method_data` (whose fields are named `payment_method_data[…]` in errors then).
 */
export async function paymentMethodFromData(
  ctx: RequestContext,
  data: PaymentMethodData,
  prefix = '',
): Promise<UsablePaymentMethod> {
  const { type: _card, card, billing_details, metadata, ...unread } = data;
  allParamsRead(unread);
  const { testCard, expMonth, expYear, cvcGiven } = withParamPrefix(prefix, () =>
    readCard(card ?? {}),
  );
  return insertCardPaymentMethod(ctx, testCard, {
    expMonth,
    expYear,
    cvcGiven,
    billingDetails: billingDetailsOf(NO_BILLING_DETAILS, billing_details),
    metadata,
  });
}

/** Runs `read`, naming the parameter of a refusal within `prefix` (`payment_method_data[card][number]`). */
function withParamPrefix<T>(prefix: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const param = error instanceof ApiError ? error.details.param : undefined;
    if (prefix && param) {
      const [head, ...rest] = param.split('[');
      throw new ApiError((error as ApiError).code, (error as ApiError).message, {
        param: `${prefix}[${head}]${rest.length ? `[${rest.join('[')}` : ''}`,
      });
    }
    throw error;
  }
}

/** The test card of `card[number]` (with its expiry) or `card[token]`, or 400 naming the field at fault. */
function readCard(card: CardParams): {
  testCard: TestCard;
  expMonth?: number;
  expYear?: number;
  cvcGiven: boolean;
} {
  const { number, exp_month, exp_year, cvc, token, ...unread } = card;
  allParamsRead(unread);
  if (token !== undefined) {
    if (number !== undefined)
      throw new ApiError(
        'parameter_invalid',
        'Pass either card[number] or card[token], not both.',
        { param: 'card[token]' },
      );
    const testCard = findTestCardByReference(token);
    if (!testCard)
      throw new ApiError('parameter_invalid', `No such token: '${token}'`, {
        param: 'card[token]',
      });
    return { testCard, cvcGiven: false };
  }
  if (number === undefined)
    throw new ApiError('parameter_missing', 'Missing required param: card[number].', {
      param: 'card[number]',
    });
  if (exp_month === undefined)
    throw new ApiError('parameter_missing', 'Missing required param: card[exp_month].', {
      param: 'card[exp_month]',
    });
  if (exp_year === undefined)
    throw new ApiError('parameter_missing', 'Missing required param: card[exp_year].', {
      param: 'card[exp_year]',
    });
  if (!passesLuhn(number))
    throw new ApiError('parameter_invalid', 'Your card number is incorrect.', {
      param: 'card[number]',
    });
  const testCard = findTestCardByNumber(number);
  if (!testCard) {
    throw new ApiError(
      'parameter_invalid',
      'Real card numbers are never accepted: this API runs in test mode only. Use a test card number (such as 4242424242424242) or a test token (tok_visa).',
      { param: 'card[number]' },
    );
  }
  return { testCard, expMonth: exp_month, expYear: exp_year, cvcGiven: cvc !== undefined };
}

/** Billing details with what was sent applied: each field sent replaces, null or empty unsets. */
export function billingDetailsOf(
  current: BillingDetails,
  sent: BillingDetailsParams | undefined,
): BillingDetails {
  if (sent === undefined) return current;
  const { address, email, name, phone, tax_id, ...unread } = sent;
  allParamsRead(unread);
  const text = (value: string | null | undefined, was: string | null) =>
    value === undefined ? was : value === '' ? null : value;
  const addressOf = () => {
    if (address === undefined) return current.address;
    const was = current.address ?? {
      city: null,
      country: null,
      line1: null,
      line2: null,
      postal_code: null,
      state: null,
    };
    return {
      city: text(address.city, was.city),
      country: text(address.country, was.country),
      line1: text(address.line1, was.line1),
      line2: text(address.line2, was.line2),
      postal_code: text(address.postal_code, was.postal_code),
      state: text(address.state, was.state),
    };
  };
  return {
    address: addressOf(),
    email: text(email, current.email),
    name: text(name, current.name),
    phone: text(phone, current.phone),
    tax_id: text(tax_id, current.tax_id),
  };
}
