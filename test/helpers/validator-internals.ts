/**
 * express-openapi-validator's own modules, for the tests that compare what this project changes
 * in it (src/http/validator-*.ts) with what it does by itself.
 */
import { createRequire } from 'node:module';
import { loadSpec } from '../../src/operations/spec.js';

/** Requires a module of the validator's package by its path inside it (`./openapi.validator`). */
export const validatorRequire = createRequire(
  createRequire(import.meta.url).resolve('express-openapi-validator'),
);

/** The spec as a loosely typed tree. */
export type Spec = Record<string, any>;

const { SchemaPreprocessor } = validatorRequire('./middlewares/parsers/schema.preprocessor') as {
  SchemaPreprocessor: new (
    apiDoc: unknown,
    ajvOptions: unknown,
    responses: unknown,
  ) => { preProcess(): { apiDoc: Spec; apiDocRes: Spec } };
};
const { OpenApiValidator } = validatorRequire('./openapi.validator') as {
  OpenApiValidator: new (options: unknown) => {
    ajvOpts: { preprocessor: unknown; request: unknown; response: unknown };
  };
};

/**
 * The validator's preparation of our spec, with responses validated as in tests: the request and
 * response sides (`apiDoc`, `apiDocRes`), and the Ajv options it made for each.
 */
export function preparedSpec() {
  const options = {
    apiSpec: {},
    validateRequests: true,
    validateResponses: { removeAdditional: false },
    validateFormats: true,
  };
  const { ajvOpts } = new OpenApiValidator(options);
  const { apiDoc, apiDocRes } = new SchemaPreprocessor(
    structuredClone(loadSpec()),
    ajvOpts.preprocessor,
    options.validateResponses,
  ).preProcess();
  return { apiDoc, apiDocRes, ajvOpts };
}
