import type { ExpandableField, NestedExpandable } from '../shared/expansion.js';

/**
 * What `expand` may name on a customer (`invoice_settings.default_payment_method`). The payment
 * methods live in `payments/`, a layer above, so this table starts empty and
 * `payments/payments.expansion.ts` adds its field when it loads (every server loads it: the
 * payment handlers import it).
 */
export const customerExpandableFields: Record<string, ExpandableField | NestedExpandable> = {};
