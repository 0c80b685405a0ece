import { chargeField } from '../payments/payments.expansion.js';
import type { ExpandableFields } from '../shared/expansion.js';

/** What `expand` may name on a refund: its `charge`, and that charge's `customer` (`charge.customer`). */
export const refundExpandableFields: ExpandableFields = { charge: chargeField };
