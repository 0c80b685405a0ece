import { expect } from 'chai';
import { graphQLSchema } from '../../src/graphql/schema.js';

/**
 * A root field without a resolver would not fail: GraphQL's default one answers null, so a
 * mutation added to the schema and forgotten in the resolvers would silently do nothing.
 */
describe('GraphQL root fields (contract)', () => {
  for (const typeName of ['Query', 'Mutation'] as const) {
    it(`gives every field of ${typeName} a resolver of its own`, () => {
      const type = typeName === 'Query' ? graphQLSchema().getQueryType()! : graphQLSchema().getMutationType()!;
      const missing = Object.values(type.getFields())
        .filter((field) => field.resolve === undefined)
        .map((field) => field.name);
      expect(missing).to.deep.equal([]);
    });
  }

  it('gives Subscription.events its subscribe', () => {
    expect(graphQLSchema().getSubscriptionType()!.getFields().events.subscribe).to.be.a('function');
  });
});
