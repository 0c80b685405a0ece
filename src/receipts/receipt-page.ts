import { escapeHtml } from '../pages/html-text.js';
import { siteStylesheet } from '../pages/site-chrome.js';
import type { ReceiptView } from './receipt-view.js';

/**
 * The page around a receipt: the site's stylesheet and header look, but a header of the merchant's
 * own: the person reading a receipt paid a merchant, and has nothing to do with the API's pages.
 */
function page(title: string, merchant: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex, nofollow">
  <title>${escapeHtml(title)}</title>
  <link rel="stylesheet" href="${siteStylesheet().url}">
</head>
<body class="site-page receipt-page">
  <header class="site-header"><span class="site-name">${escapeHtml(merchant)}</span></header>
  <main class="receipt">
${main}
  </main>
</body>
</html>
`;
}

/** A charge's receipt page: what was paid, how, when, and every refund since. */
export function renderReceipt(view: ReceiptView): string {
  const merchant = escapeHtml(view.merchant);
  const fact = (name: string, title: string, value: string) =>
    `      <div><dt>${title}</dt><dd data-fact="${name}">${escapeHtml(value)}</dd></div>`;
  const refunds =
    view.refunds.length === 0
      ? ''
      : `    <h2>Refunds</h2>
    <table class="receipt-refunds">
      <thead><tr><th scope="col">Date</th><th scope="col">Amount</th></tr></thead>
      <tbody>
${view.refunds.map((refund) => `        <tr><td>${escapeHtml(refund.date)}</td><td>${escapeHtml(refund.amount)}</td></tr>`).join('\n')}
      </tbody>
      <tfoot><tr><th scope="row">Refunded in all</th><td data-fact="refunded">${escapeHtml(view.refunded ?? '')}</td></tr></tfoot>
    </table>
`;
  return page(
    `Receipt from ${view.merchant}`,
    view.merchant,
    `    <h1>Receipt from ${merchant}</h1>
${view.receiptNumber ? `    <p class="lede">Receipt #${escapeHtml(view.receiptNumber)}</p>
` : ''}    <dl class="facts" aria-label="Payment">
${fact('amount', 'Amount', `${view.amount} ${view.currency}`)}
${fact('date', 'Date', view.date)}
${fact('card', 'Paid with', view.card)}
${fact('status', 'Status', view.status)}
    </dl>
${refunds}    <p class="receipt-reference">Payment reference <code>${escapeHtml(view.chargeId)}</code></p>`,
  );
}

/** What any address under /receipts/ that is not a receipt shows: the same page, whatever was wrong. */
export function renderReceiptNotFound(): string {
  return page(
    'Receipt not found',
    'Receipt',
    `    <h1>Receipt not found</h1>
    <p class="lede">There is no receipt at this address. Check the link you were sent.</p>`,
  );
}
