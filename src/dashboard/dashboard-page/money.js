/*
 * Amounts as people read and type them: in the currency's units (20.00 USD, 500 JPY), while the
 * API counts in its smallest unit (2000, 500).
 */

/** How many decimals the currency has: 2 for `usd`, 0 for `jpy`, 3 for `kwd`. */
export function currencyDigits(currency) {
  return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions()
    .maximumFractionDigits;
}

/**
 * An amount in the currency's smallest unit as `20.00 USD`: as many decimals as the currency has
 * (none for `jpy`), the same in every browser locale.
 */
export function formatAmount(amount, currency) {
  const digits = currencyDigits(currency);
  return `${(amount / 10 ** digits).toFixed(digits)} ${currency.toUpperCase()}`;
}

/** An amount in the smallest unit as it is typed back: `15.00` for 1500 cents, with no currency. */
export function amountInput(amount, currency) {
  const digits = currencyDigits(currency);
  return (amount / 10 ** digits).toFixed(digits);
}

/**
 * What a person typed (`15`, `15.5`, `15.50`) in the smallest unit (1500), or undefined when it is
 * not an amount of this currency (more decimals than it has, a sign, letters). Read as text, never
 * through a float, so `0.29` is 29 and not 28.999….
 */
export function parseAmount(text, currency) {
  const digits = currencyDigits(currency);
  const match = /^(\d{1,12})(?:\.(\d*))?$/.exec(text.trim());
  if (!match || (match[2] ?? '').length > digits) return undefined;
  const fraction = (match[2] ?? '').padEnd(digits, '0');
  return Number(match[1]) * 10 ** digits + (digits === 0 ? 0 : Number(fraction));
}
