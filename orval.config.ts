import { defineConfig } from 'orval';

/** The SDK's generated layer: one fetch function per operation, typed from the spec. */
export default defineConfig({
  payments: {
    input: { target: './openapi/openapi.yaml' },
    output: {
      target: './sdk/src/generated/payments.ts',
      client: 'fetch',
      mode: 'single',
      headers: true,
      clean: true,
      prettier: false,
      override: {
        mutator: { path: './sdk/src/transport.ts', name: 'transport', extension: '.js' },
      },
    },
  },
});
