import type { Queryable } from '../../db/database.js';
import { firstRefundsOfCharges } from './refunds.repo.js';
import type { ChargeRow } from './charges.repo.js';
import { EMBEDDED_REFUNDS, NO_REFUNDS, toChargeResource, type Charge } from './charges.mapper.js';

/**
 * Charges as the API shows them, with their first refunds. Only a charge with something refunded
 * (or released) can have refunds, so most pages cost no second statement, and the others one
 * statement for the whole page.
 */
export async function toCharges(db: Queryable, accountId: string, rows: readonly ChargeRow[]): Promise<Charge[]> {
  const refunded = rows.filter((row) => row.amount_refunded > 0).map((row) => row.id);
  const pages = refunded.length === 0 ? [] : await firstRefundsOfCharges(db, accountId, refunded, EMBEDDED_REFUNDS);
  const refundsOf = new Map(refunded.map((id, i) => [id, pages[i]]));
  return rows.map((row) => toChargeResource(row, refundsOf.get(row.id) ?? NO_REFUNDS));
}

/** One charge as the API shows it (see {@link toCharges}). */
export async function toCharge(db: Queryable, accountId: string, row: ChargeRow): Promise<Charge> {
  return (await toCharges(db, accountId, [row]))[0];
}
