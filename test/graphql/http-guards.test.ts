import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { aCharge } from '../helpers/builders.js';
import { forEachDatabase } from '../helpers/databases.js';
import { firstErrorCode, graphql } from '../helpers/graphql-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { persistTrustedDocuments } from '../../src/graphql/persisted-documents.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

forEachDatabase('GraphQL limits and persisted documents over HTTP', (engine) => {
  let server: TestServer;
  const send = (query: string | undefined, options: Parameters<typeof graphql>[4] = {}) =>
    graphql(server.url, server.api.apiKey, query, undefined, options);

  describe('limits', () => {
    before(async () => {
      server = await startTestServer(engine);
    });
    after(async () => {
      await server.close();
    });

    it('refuses a document nested too deeply with 400 QUERY_TOO_DEEP, whatever the Accept header', async () => {
      const deep = '{ charges { edges { node { customer { charges { edges { node { customer { charges { edges { node { id } } } } } } } } } } } }';
      const res = await send(deep, { headers: { Accept: 'application/json' } });
      expect(res.status).to.equal(400);
      expect(firstErrorCode(res)).to.equal('QUERY_TOO_DEEP');
      expect(res.body.errors![0].message).to.match(/depth \d+ exceeds the maximum of 10/i);
    });

    it('refuses a document that would cost too much with 400 QUERY_TOO_COMPLEX', async () => {
      const costly = '{ charges(first: 100) { edges { node { customer { charges(first: 100) { edges { node { id } } } } } } } }';
      const res = await send(costly);
      expect(res.status).to.equal(400);
      expect(firstErrorCode(res)).to.equal('QUERY_TOO_COMPLEX');
    });

    it('refuses alias amplification with 400 TOO_MANY_ALIASES', async () => {
      const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: charges(first: 1) { edges { cursor } }`).join(' ');
      const res = await send(`{ ${aliases} }`);
      expect(res.status).to.equal(400);
      expect(firstErrorCode(res)).to.equal('TOO_MANY_ALIASES');
    });

    it('refuses a document of too many tokens with 400 TOO_MANY_TOKENS', async () => {
      const fields = Array.from({ length: 6000 }, () => '__typename').join(' ');
      const res = await send(`{ ${fields} }`);
      expect(res.status).to.equal(400);
      expect(firstErrorCode(res)).to.equal('TOO_MANY_TOKENS');
    });

    it('refuses a body over 1 MB with 413 in GraphQL\'s shape', async () => {
      const res = await send(`{ __typename } # ${'x'.repeat(1024 * 1024)}`);
      expect(res.status).to.equal(413);
      expect(firstErrorCode(res)).to.equal('request_too_large');
    });

    it('refuses batches: one operation per request', async () => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.api.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
      });
      expect(res.status).to.equal(400);
    });

    it('keeps introspection on', async () => {
      const res = await send('{ __schema { queryType { name } mutationType { name } subscriptionType { name } } }');
      expect(res.body.data!.__schema).to.deep.equal({
        queryType: { name: 'Query' },
        mutationType: { name: 'Mutation' },
        subscriptionType: { name: 'Subscription' },
      });
    });
  });

  describe('automatic persisted queries and persisted documents', () => {
    before(async () => {
      server = await startTestServer(engine);
    });
    after(async () => {
      await server.close();
    });

    it('answers an unknown hash with PersistedQueryNotFound, then stores the query sent with it', async () => {
      const charge = await aCharge(server.api);
      const query = `{ charge(id: "${charge.id}") { id amount } }`;
      const persistedQuery = { version: 1, sha256Hash: sha256(query) };
      const miss = await send(undefined, { extensions: { persistedQuery } });
      expect(miss.body.errors![0]).to.deep.include({ message: 'PersistedQueryNotFound' });
      expect(firstErrorCode(miss)).to.equal('PERSISTED_QUERY_NOT_FOUND');
      const register = await send(query, { extensions: { persistedQuery } });
      expect(register.body.data!.charge.id).to.equal(charge.id);
      const hit = await send(undefined, { extensions: { persistedQuery } });
      expect(hit.body.data!.charge).to.deep.equal({ id: charge.id, amount: charge.amount });
    });

    it('refuses a query whose hash does not match', async () => {
      const res = await send('{ __typename }', { extensions: { persistedQuery: { version: 1, sha256Hash: sha256('other') } } });
      expect(res.status).to.equal(400);
      expect(firstErrorCode(res)).to.equal('PERSISTED_QUERY_HASH_MISMATCH');
    });

    it('runs a persisted document by documentId', async () => {
      const [id] = await persistTrustedDocuments(server.db, ['{ charges(first: 1) { edges { cursor } } }'], 0);
      const res = await send(undefined, { documentId: id });
      expect(res.body.errors).to.equal(undefined);
      expect(res.body.data!.charges.edges).to.have.length(1);
      const unknown = await send(undefined, { documentId: `sha256:${sha256('nothing')}` });
      expect(firstErrorCode(unknown)).to.equal('PERSISTED_DOCUMENT_NOT_FOUND');
    });
  });

  describe('GRAPHQL_TRUSTED_DOCUMENTS_ONLY', () => {
    before(async () => {
      server = await startTestServer(engine, { graphqlTrustedDocumentsOnly: true });
    });
    after(async () => {
      await server.close();
    });

    it('runs only documents registered by the operator', async () => {
      const trusted = '{ charges(first: 2) { edges { cursor } } }';
      const [id] = await persistTrustedDocuments(server.db, [trusted], 0);
      const byId = await send(undefined, { documentId: id });
      expect(byId.body.data).to.deep.equal({ charges: { edges: [] } });
      const byHash = await send(undefined, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(trusted) } } });
      expect(byHash.body.data).to.deep.equal({ charges: { edges: [] } });

      const arbitrary = await send('{ charges(first: 3) { edges { cursor } } }');
      expect(arbitrary.status).to.equal(400);
      expect(firstErrorCode(arbitrary)).to.equal('PERSISTED_DOCUMENT_REQUIRED');
      const query = '{ __typename }';
      const registration = await send(query, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } });
      expect(registration.status).to.be.within(400, 499);
    });
  });
});
