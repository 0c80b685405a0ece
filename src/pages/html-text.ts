/** Text for the server's HTML pages: escaping, and amounts as a person reads them. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe inside HTML, in an element or an attribute (stored values are anyone's text). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/**
 * An amount in minor units in the currency's own units (`2000 usd` → `$20.00`, `500 jpy` → `¥500`):
 * the currency's decimals come from Intl, and the decimal text is built from the integer, so no
 * float ever rounds it.
 */
export function formatMoney(minor: number, currency: string): string {
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  const text = String(minor).padStart(digits + 1, '0');
  const decimal = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  // A decimal string keeps every digit (Intl.NumberFormat formats strings exactly).
  return format.format(decimal as unknown as number);
}
