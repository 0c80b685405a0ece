import fs from 'node:fs';
import { expect } from 'chai';
import {
  GraphQLError,
  buildSchema,
  getIntrospectionQuery,
  specifiedRules,
  validate,
} from 'graphql';
import {
  DEFAULT_GRAPHQL_LIMITS,
  limitRules,
  parseWithinLimits,
  type GraphQLLimits,
} from '../../src/graphql/limits.js';

const schema = buildSchema(
  fs.readFileSync(new URL('../../graphql/schema.graphql', import.meta.url), 'utf8'),
);

/** What the GraphQL endpoint does before executing: parse within the limits, then validate. */
function check(
  query: string,
  limits: GraphQLLimits = DEFAULT_GRAPHQL_LIMITS,
): readonly GraphQLError[] {
  return validate(schema, parseWithinLimits(query, limits), [
    ...specifiedRules,
    ...limitRules(limits),
  ]);
}

/** The errors of one limit, by `extensions.code`. */
function refusals(query: string, code: string, limits?: GraphQLLimits): GraphQLError[] {
  return check(query, limits).filter((error) => error.extensions.code === code);
}

/** The cost a client is told: measured with a maximum of 0, so that any cost is reported. */
function costOf(query: string): number {
  const [refusal] = refusals(query, 'QUERY_TOO_COMPLEX', { ...DEFAULT_GRAPHQL_LIMITS, maxCost: 0 });
  return refusal ? (refusal.extensions.cost as number) : 0;
}

/**
 * A query of depth 4 × `customerLevels` + 6: `customerLevels` times `charges(first: 1) { edges { node { customer {`,
 * then `charges(first: 1) { edges { node { refunds { charge { id`. Pages of 1 keep its cost low.
 */
function deepQuery(customerLevels: number): string {
  const customers = 'charges(first: 1) { edges { node { customer { '.repeat(customerLevels);
  const closings = '} } } } '.repeat(customerLevels);
  return `{ ${customers}charges(first: 1) { edges { node { refunds { charge { id } } } } } ${closings}}`;
}

const PAGE_OF_100 = `{
  charges(first: 100) {
    edges { cursor node { id amount currency state customer { id email } refunds { id amount } card { brand last4 } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const NESTED_PAGES_OF_100 =
  '{ charges(first: 100) { edges { node { customer { charges(first: 100) { edges { node { refunds { id } } } } } } } } }';

describe('GraphQL operation limits', () => {
  describe('with the default limits', () => {
    it('accepts a page of 100 charges with each charge’s customer, refunds and card', () => {
      expect(check(PAGE_OF_100)).to.deep.equal([]);
    });

    it('accepts the introspection query GraphiQL sends, with every option on', () => {
      const options = {
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        oneOf: true,
      };
      expect(check(getIntrospectionQuery(options))).to.deep.equal([]);
    });

    it('refuses a page of 100 charges with a page of 100 charges of each customer, for its cost', () => {
      const errors = check(NESTED_PAGES_OF_100);
      expect(errors).to.have.length(1);
      expect(errors[0].extensions).to.deep.equal({
        code: 'QUERY_TOO_COMPLEX',
        cost: 30_401,
        maxCost: 1000,
      });
      expect(errors[0].message).to.match(/^Query cost 30401 exceeds the maximum of 1000\. /);
    });
  });

  describe('depth', () => {
    it('accepts depth 10 and refuses depth 14 with QUERY_TOO_DEEP, the depth and the maximum', () => {
      expect(check(deepQuery(1))).to.deep.equal([]);
      const errors = check(deepQuery(2));
      expect(errors).to.have.length(1);
      expect(errors[0].message).to.equal('Query depth 14 exceeds the maximum of 10.');
      expect(errors[0].extensions).to.deep.equal({
        code: 'QUERY_TOO_DEEP',
        depth: 14,
        maxDepth: 10,
      });
      expect(errors[0].locations).to.deep.equal([{ line: 1, column: 1 }]);
    });

    it('counts the fields of named and inline fragments where they are spread', () => {
      const query = `
        query Deep { charges(first: 1) { edges { node { ...Nested } } } }
        fragment Nested on Charge { customer { charges(first: 1) { edges { ... on ChargeEdge { node { ...Leaf } } } } } }
        fragment Leaf on Charge { customer { charges(first: 1) { edges { node { ... { id } } } } } }`;
      expect(
        refusals(query, 'QUERY_TOO_DEEP').map((error) => error.extensions.depth),
      ).to.deep.equal([12]);
    });

    it('refuses a cyclic fragment as invalid instead of measuring it forever', () => {
      const query = `
        { charge(id: "ch_1") { ...Loop } }
        fragment Loop on Charge { customer { charges(first: 1) { edges { node { ...Loop } } } } }`;
      expect(check(query).map((error) => error.message)).to.include(
        'Cannot spread fragment "Loop" within itself.',
      );
    });

    it('refuses the deepest document the token limit lets through with a QUERY_TOO_DEEP error, not a crash', () => {
      // 11 tokens around 6 per level (`{ refunds { charge` and `} }`); depth 2 per level, plus `charge` and `id`.
      const levels = Math.floor((DEFAULT_GRAPHQL_LIMITS.maxTokens - 11) / 6);
      const query = `{ charge(id: "ch_1") ${'{ refunds { charge '.repeat(levels)}{ id }${' } }'.repeat(levels)} }`;
      expect(
        refusals(query, 'QUERY_TOO_DEEP').map((error) => error.extensions.depth),
      ).to.deep.equal([2 * levels + 2]);
    });
  });

  describe('cost', () => {
    const costs: Array<[string, string, number]> = [
      [
        'an object field costs 1, its scalars nothing',
        '{ charge(id: "ch_1") { id amount currency } }',
        1,
      ],
      [
        'objects and lists cost 1 each',
        '{ charge(id: "ch_1") { customer { id } refunds { id } card { brand } } }',
        4,
      ],
      ['a page multiplies what is selected inside it', PAGE_OF_100, 601],
      [
        'a page size left out counts as 10, as in REST',
        '{ charges { edges { node { id } } } }',
        21,
      ],
      ['`last` counts like `first`', '{ charges(last: 50) { edges { node { id } } } }', 101],
      [
        'the larger of `first` and `last` counts',
        '{ charges(first: 5, last: 20) { edges { node { id } } } }',
        41,
      ],
      [
        'a page size above 100 counts as 100, the most a page returns',
        '{ charges(first: 5000) { edges { node { id } } } }',
        201,
      ],
      ['a nested page multiplies again', NESTED_PAGES_OF_100, 30_401],
      [
        '`nodes` multiplies what is selected inside it by the number of ids',
        '{ nodes(ids: ["cus_1", "cus_2", "cus_3"]) { id ... on Customer { charges { edges { node { id } } } } } }',
        64,
      ],
      [
        '`nodes` with one id given alone counts it once',
        '{ nodes(ids: "cus_1") { ... on Customer { charges { edges { node { id } } } } } }',
        22,
      ],
      [
        '`nodes` with ids given by a variable counts 100 of them',
        'query ($ids: [ID!]!) { nodes(ids: $ids) { ... on Customer { charges { edges { node { id } } } } } }',
        2101,
      ],
      [
        'introspection is free',
        '{ __schema { types { name fields { name type { name ofType { name } } } } } }',
        0,
      ],
    ];
    for (const [rule, query, cost] of costs) {
      it(`${rule}: ${cost}`, () => expect(costOf(query)).to.equal(cost));
    }

    it('counts a page size given by a variable as 100, even when its default is smaller', () => {
      const body = 'edges { node { customer { charges(first: 5) { edges { node { id } } } } } }';
      expect(check(`{ charges(first: 5) { ${body} } }`)).to.deep.equal([]);
      const errors = refusals(
        `query Page($size: Int = 5) { charges(first: $size) { ${body} } }`,
        'QUERY_TOO_COMPLEX',
      );
      expect(errors.map((error) => error.extensions.cost)).to.deep.equal([1401]);
    });
  });

  describe('aliases', () => {
    const aliased = (count: number) =>
      `{ ${Array.from({ length: count }, (_, i) => `c${i}: charges(first: 1) { edges { cursor } }`).join(' ')} }`;

    it('accepts 30 aliases and refuses 31 with TOO_MANY_ALIASES', () => {
      expect(check(aliased(30))).to.deep.equal([]);
      const errors = check(aliased(31));
      expect(errors).to.have.length(1);
      expect(errors[0].message).to.equal('Query uses 31 aliases, more than the maximum of 30.');
      expect(errors[0].extensions).to.deep.equal({
        code: 'TOO_MANY_ALIASES',
        aliases: 31,
        maxAliases: 30,
      });
    });

    it('counts a fragment’s aliases each time it is spread, so fragments cannot hide an amplification', () => {
      const owners = Array.from({ length: 10 }, (_, i) => `o${i}: customer { id }`).join(' ');
      const query = `
        { a: charge(id: "ch_1") { ...Owners } b: charge(id: "ch_2") { ...Owners } c: charge(id: "ch_3") { ...Owners } }
        fragment Owners on Charge { ${owners} }`;
      expect(
        refusals(query, 'TOO_MANY_ALIASES').map((error) => error.extensions.aliases),
      ).to.deep.equal([33]);
    });

    it('counts aliased introspection, which is free once but not thirty-one times', () => {
      const query = `{ ${Array.from({ length: 31 }, (_, i) => `s${i}: __schema { types { name } }`).join(' ')} }`;
      expect(refusals(query, 'TOO_MANY_ALIASES')).to.have.length(1);
    });
  });

  describe('tokens', () => {
    it('refuses a document of more than 5,000 tokens with TOO_MANY_TOKENS and the maximum', () => {
      // 2,000 aliased fields of 3 tokens each (`a0 : id`).
      const query = `{ charge(id: "ch_1") { ${Array.from({ length: 2000 }, (_, i) => `a${i}: id`).join(' ')} } }`;
      const error = catchError(() => parseWithinLimits(query, DEFAULT_GRAPHQL_LIMITS));
      expect(error).to.be.instanceOf(GraphQLError);
      expect(error.message).to.equal('The query document exceeds the maximum of 5000 tokens.');
      expect(error.extensions).to.deep.equal({ code: 'TOO_MANY_TOKENS', maxTokens: 5000 });
    });

    it('accepts a document of exactly the maximum number of tokens, and refuses one more', () => {
      const limits = { ...DEFAULT_GRAPHQL_LIMITS, maxTokens: 10 };
      expect(parseWithinLimits(`{ ${'id '.repeat(8)}}`, limits).definitions).to.have.length(1);
      expect(
        catchError(() => parseWithinLimits(`{ ${'id '.repeat(9)}}`, limits)).extensions.code,
      ).to.equal('TOO_MANY_TOKENS');
    });

    it('reports a syntax error as graphql’s syntax error, not as too many tokens', () => {
      const error = catchError(() => parseWithinLimits('{ charge(id: ', DEFAULT_GRAPHQL_LIMITS));
      expect(error.message).to.match(/^Syntax Error: /);
      expect(error.extensions.code).to.equal(undefined);
    });
  });
});

function catchError(run: () => unknown): GraphQLError {
  try {
    run();
  } catch (error) {
    return error as GraphQLError;
  }
  throw new Error('expected an error');
}
