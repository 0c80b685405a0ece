import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../db/database.js';
import { findAccount } from '../accounts/accounts.repo.js';

/** What a card statement shows at most. */
const MAX_LENGTH = 22;
/** The account's part of a statement descriptor with a suffix (`ACCOUNT* SUFFIX`), as card networks shorten it. */
const PREFIX_LENGTH = 10;

/** The descriptor of an account with a name that has no letter or digit. */
const FALLBACK = 'PAYMENTS';

/**
 * Accounts' names never change, so each process keeps the descriptors it read (a statement fewer
 * for every payment after an account's first).
 */
const accountDescriptors = new LRUCache<string, string>({ max: 10_000 });

/** The account's static statement descriptor: the letters, digits and spaces of its name, in capitals. */
export async function accountDescriptor(db: Queryable, accountId: string): Promise<string> {
  const known = accountDescriptors.get(accountId);
  if (known !== undefined) return known;
  const account = await findAccount(db, accountId);
  const cleaned = (account?.name ?? '').replace(/[^A-Za-z0-9 ]/g, '').replace(/\s+/g, ' ').trim().toUpperCase();
  const descriptor = /[A-Z]/.test(cleaned) ? cleaned.slice(0, MAX_LENGTH).trim() : FALLBACK;
  accountDescriptors.set(accountId, descriptor);
  return descriptor;
}

/**
 * What the card statement shows for a payment (`calculated_statement_descriptor`): its own
 * `statement_descriptor`, or the account's descriptor followed by `* ` and the suffix, cut to 22
 * characters, or the account's descriptor alone.
 */
export function calculatedStatementDescriptor(account: string, descriptor: string | null, suffix: string | null): string {
  if (descriptor) return descriptor;
  if (!suffix) return account;
  return `${account.slice(0, PREFIX_LENGTH).trim()}* ${suffix}`.slice(0, MAX_LENGTH).trim();
}

/** The statement descriptors a payment's charge is made or captured with. */
export interface StatementDescriptors {
  statement_descriptor: string | null;
  statement_descriptor_suffix: string | null;
  calculated_statement_descriptor: string;
}

/** The descriptors of a charge of this account with these (the intent's, or those of a capture). */
export async function statementDescriptors(
  db: Queryable,
  accountId: string,
  descriptor: string | null,
  suffix: string | null,
): Promise<StatementDescriptors> {
  const calculated = descriptor ? descriptor : calculatedStatementDescriptor(await accountDescriptor(db, accountId), null, suffix);
  return { statement_descriptor: descriptor, statement_descriptor_suffix: suffix, calculated_statement_descriptor: calculated };
}
