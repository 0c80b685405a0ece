import fs from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { contractFile } from '../operations/project-files.js';
import { resolvers } from './resolvers.js';

/** Where the GraphQL contract lives. */
export const GRAPHQL_SCHEMA_PATH = contractFile('graphql/schema.graphql');

/** The contract's SDL, as committed. */
export function loadTypeDefs(): string {
  return fs.readFileSync(GRAPHQL_SCHEMA_PATH, 'utf8');
}

let cached: GraphQLSchema | undefined;

/** The executable schema: the committed SDL with the resolvers typed against it by codegen. Built once per process. */
export function graphQLSchema(): GraphQLSchema {
  cached ??= makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers });
  return cached;
}
