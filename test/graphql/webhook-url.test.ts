import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases.js';
import { graphql } from '../helpers/graphql-client.js';
import { useTestServer } from '../helpers/test-server.js';

const CREATE = `mutation ($url: String!) {
  createWebhookEndpoint(input: { url: $url, enabledEvents: ["*"] }) { secret endpoint { id url } }
}`;
const UPDATE = `mutation ($id: ID!, $url: String!) { updateWebhookEndpoint(id: $id, input: { url: $url }) { url } }`;

/** The same guard as REST (one service): loopback and private space are refused at registration. */
forEachDatabase('GraphQL webhook endpoint URLs', (engine) => {
  const server = useTestServer(engine);
  const send = (document: string, variables: Record<string, unknown>) => graphql(server.url, server.api.apiKey, document, variables);

  const refused = ['http://localhost./hook', 'http://ip6-localhost/hook', 'http://2130706433/hook', 'http://[::7f00:1]/hook', 'http://[fd00::1]/hook', 'http://100.64.0.1/hook'];

  it('refuses loopback and private URLs in createWebhookEndpoint with parameter_invalid naming url', async () => {
    for (const url of refused) {
      const res = await send(CREATE, { url });
      expect(res.body.data, url).to.deep.equal({ createWebhookEndpoint: null });
      expect(res.body.errors![0].extensions, url).to.include({ code: 'parameter_invalid', param: 'url' });
      expect(res.body.errors![0].message).to.match(/^Invalid url: the webhook URL /);
    }
    expect((await server.api.get('/v1/webhook_endpoints')).body.data).to.deep.equal([]);
  });

  it('refuses them in updateWebhookEndpoint too, and accepts a public address', async () => {
    const created = await send(CREATE, { url: 'https://93.184.215.14/hook' });
    expect(created.body.errors).to.equal(undefined);
    const id = created.body.data!.createWebhookEndpoint.endpoint.id;
    for (const url of refused) {
      const res = await send(UPDATE, { id, url });
      expect(res.body.errors![0].extensions, url).to.include({ code: 'parameter_invalid', param: 'url' });
    }
    expect((await server.api.get(`/v1/webhook_endpoints/${id}`)).body.url).to.equal('https://93.184.215.14/hook');
  });
});
