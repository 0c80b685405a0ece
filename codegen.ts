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
      },
    },
  },
};

export default config;
