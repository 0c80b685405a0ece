import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * GraphQL code generation: the schema's types and typed resolver signatures, into generated/.
 * Run by `npm run generate`; the output is committed and checked for drift in CI.
 */
const config: CodegenConfig = {
  schema: 'graphql/schema.graphql',
  generates: {
    'generated/graphql.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useTypeImports: true,
        emitLegacyCommonJSImports: false,
        enumsAsTypes: true,
        scalars: { Metadata: 'Record<string, string>', JSON: 'unknown' },
        // Resolvers receive the REST resources the services return; field resolvers rename them.
        contextType: '../src/graphql/context.js#GraphQLContext',
        mapperTypeSuffix: 'Resource',
        mappers: {
          Customer: '../src/resources/customers/customers.mapper.js#Customer',
          Charge: '../src/resources/charges/charges.mapper.js#Charge',
          Refund: '../src/resources/refunds/refunds.mapper.js#Refund',
          Event: '../src/resources/events/events.mapper.js#Event',
          WebhookEndpoint: '../src/resources/webhook-endpoints/webhook-endpoints.mapper.js#WebhookEndpoint',
        },
      },
    },
  },
};

export default config;
