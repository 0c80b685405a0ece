import { expect } from 'chai';
import { serverAudits } from 'graphql-http';
import { forEachDatabase } from '../helpers/databases.js';
import { useTestServer } from '../helpers/test-server.js';

/**
 * The GraphQL-over-HTTP conformance audit that ships with graphql-http, run against the real
 * server with an API key: every MUST and every SHOULD has to pass. (MAY items are optional.)
 */
forEachDatabase('GraphQL over HTTP audit', (engine) => {
  const server = useTestServer(engine, {}, { per: 'suite' });

  const audits = serverAudits({
    url: () => `${server.url}/graphql`,
    fetchFn: (input: string | URL | Request, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${server.api.apiKey}`);
      return fetch(input, { ...init, headers });
    },
  });

  for (const audit of audits.filter((a) => !a.name.startsWith('MAY'))) {
    it(audit.name, async () => {
      const result = await audit.fn();
      const detail = result.status === 'ok' ? '' : `${result.reason}`;
      expect(result.status, detail).to.equal('ok');
    });
  }
});
