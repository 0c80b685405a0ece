import express, { type RequestHandler } from 'express';
import helmet from 'helmet';

/** Where a person goes from the server's root, each with what it is. */
export const HOME_LINKS: ReadonlyArray<{ path: string; title: string; what: string }> = [
  { path: '/docs', title: 'API reference', what: 'every REST operation, with its parameters, answers and errors (Swagger UI)' },
  { path: '/graphql', title: 'GraphQL', what: 'the same services through GraphQL, in GraphiQL' },
  { path: '/dashboard', title: 'Dashboard', what: 'payments, events, webhook deliveries and failed webhooks' },
  { path: '/openapi.yaml', title: 'OpenAPI contract', what: 'the spec this server is built from (also /openapi.json)' },
];

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>payments-api</title>
</head>
<body>
  <h1>payments-api</h1>
  <p>A payments API you run yourself. Authenticate with the key in <code>DATA_DIR/dev-api-key</code>
  (<code>curl -u sk_test_…: …/v1/charges</code>).</p>
  <ul>
${HOME_LINKS.map((link) => `    <li><a href="${link.path}">${link.title}</a>: ${link.what}</li>`).join('\n')}
  </ul>
</body>
</html>
`;

/**
 * `GET /`: a small page of links for a person who opens the server's address in a browser,
 * instead of the API's 404. Static, with helmet's HTML headers; the API's own paths are elsewhere.
 */
export function createHomeRouter(): RequestHandler {
  const router = express.Router();
  router.get('/', helmet(), (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('html').send(PAGE);
  });
  return router;
}
