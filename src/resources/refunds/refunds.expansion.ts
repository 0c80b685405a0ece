import { chargeField, customerField, paymentMethodField } from '../payments/payments.expansion.js';
import type { ExpandableFields } from '../shared/expansion.js';

/**
 * What `expand` may name on a refund: its `charge` (and below it, `charge.customer`), its
 * `customer` and its `payment_method`.
 */
export const refundExpandableFields: ExpandableFields = {
  charge: chargeField,
  customer: customerField,
  payment_method: paymentMethodField,
};
