import { GraphQLError, specifiedRules, validate, type DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { limitRules, parseWithinLimits, type GraphQLLimits } from './limits.js';
import { graphQLSchema } from './schema.js';

/**
 * A document's verdict: parsed and valid, or the errors to answer with. `overLimit` marks a
 * refusal by the server's limits (tokens, depth, cost, aliases) rather than by GraphQL's own rules.
 */
export type DocumentVerdict = { document: DocumentNode } | { errors: readonly GraphQLError[]; overLimit: boolean };

/**
 * Checks a document once per distinct text, for HTTP and WebSocket alike: parsed within the token
 * limit, validated by graphql's rules, then held to the depth, cost and alias limits. The verdict
 * depends only on the text and the schema, so it is cached.
 */
export function createDocumentChecker(limits: GraphQLLimits): (query: string) => DocumentVerdict {
  const schema = graphQLSchema();
  const rules = [...specifiedRules];
  const policy = limitRules(limits);
  const checked = new LRUCache<string, DocumentVerdict>({ max: 1000 });
  return (query) => {
    const hit = checked.get(query);
    if (hit) return hit;
    let verdict: DocumentVerdict;
    try {
      const document = parseWithinLimits(query, limits);
      const errors = validate(schema, document, rules);
      const violations = errors.length ? [] : validate(schema, document, policy);
      verdict = errors.length
        ? { errors, overLimit: false }
        : violations.length
          ? { errors: violations, overLimit: true }
          : { document };
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      verdict = { errors: [error], overLimit: error.extensions.code === 'TOO_MANY_TOKENS' };
    }
    checked.set(query, verdict);
    return verdict;
  };
}
