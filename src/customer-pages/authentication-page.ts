/**
 * The HTML of the authentication page (3-D Secure in a browser, test mode): what is paid and to
 * whom, and the two answers a test customer can give. No script at all, so it runs under the
 * pages' Content-Security-Policy as it is; the shared header and site.css give it the site's look.
 */
import { escapeHtml } from '../pages/html-text.js';
import { siteHeader, siteStylesheet } from '../pages/site-chrome.js';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>${escapeHtml(title)}</title>
  <link rel="stylesheet" href="${siteStylesheet().url}">
</head>
<body class="site-page">
  ${siteHeader('/authenticate')}
  <main>
${body}
  </main>
</body>
</html>
`;
}

/** What the waiting customer sees: the amount, the merchant, and the form with Complete and Fail. */
export function authenticationPage(view: { merchant: string; amount?: string; action: string; clientSecret: string }): string {
  const what = view.amount ? `<dd data-field="amount">${escapeHtml(view.amount)}</dd>` : '<dd data-field="amount">nothing now (saved for later)</dd>';
  // A setup intent pays nothing: the customer authenticates the card itself.
  const title = view.amount ? 'Authenticate this payment' : 'Authenticate this card';
  return page(
    title,
    `    <h1>${title}</h1>
    <p class="lede">A test authentication (3-D Secure): choose how the customer's bank answers.</p>
    <dl class="facts">
      <div><dt>Merchant</dt><dd data-field="merchant">${escapeHtml(view.merchant)}</dd></div>
      <div><dt>Amount</dt>${what}</div>
    </dl>
    <form method="post" action="${escapeHtml(view.action)}" class="authentication-answers">
      <input type="hidden" name="client_secret" value="${escapeHtml(view.clientSecret)}">
      <button type="submit" name="outcome" value="succeeded">Complete</button>
      <button type="submit" name="outcome" value="failed">Fail</button>
    </form>`,
  );
}

/** A link that opens nothing (unknown object, wrong or missing client secret), or nothing left to answer. */
export function noticePage(status: number, message: string, returnUrl?: string): string {
  const back = returnUrl ? `\n    <p><a href="${escapeHtml(returnUrl)}" rel="noreferrer">Return to the merchant</a></p>` : '';
  const title = status === 404 ? 'This link is not valid' : 'Nothing to authenticate';
  return page(title, `    <h1>${title}</h1>\n    <p class="lede">${escapeHtml(message)}</p>${back}`);
}
