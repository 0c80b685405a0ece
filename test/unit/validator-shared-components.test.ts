import { expect } from 'chai';
import { sample } from 'openapi-sampler';
import {
  compileWithoutSpecCopy,
  type AjvLike,
  type ValidateFunction,
} from '../../src/http/validator-shared-components.js';
import { preparedSpec, validatorRequire, type Spec } from '../helpers/validator-internals.js';

const { createRequestAjv, createResponseAjv } = validatorRequire('./framework/ajv/index') as {
  createRequestAjv(spec: Spec, options: unknown): Ajv;
  createResponseAjv(spec: Spec, options: unknown): Ajv;
};

/** How a validator wraps a body schema in its root, and the body in the data it checks. */
type Wrap = ((schema: unknown) => object) & { data: (value: unknown) => unknown };
type Ajv = AjvLike & {
  addSchema(schema: object, key: string): void;
  getSchema(key: string): ValidateFunction;
};

/** The validator's own way (util.useAjvCache): the root, with its copy of the spec, under a key. */
function compiledWithSpecCopy(ajv: Ajv, root: Record<string, unknown>, key: string) {
  ajv.addSchema(root, key);
  return ajv.getSchema(key);
}

/** What a client learns from a verdict: the errors as the validator words them (not Ajv's schema paths). */
function verdict(validate: ValidateFunction, data: unknown) {
  const valid = validate(structuredClone(data));
  const errors = (validate.errors ?? []) as Array<Record<string, unknown>>;
  return {
    valid,
    errors: errors.map(({ instancePath, keyword, params, message }) => ({
      instancePath,
      keyword,
      params,
      message,
    })),
  };
}

/** A valid-looking value and values broken one property at a time (removed, wrong type, unknown added). */
function values(schema: unknown, spec: Spec): unknown[] {
  const valid = sample(schema as never, { skipReadOnly: false }, spec as never) as unknown;
  const broken: unknown[] = [valid, null, 'a string', []];
  if (valid && typeof valid === 'object' && !Array.isArray(valid)) {
    broken.push({ ...valid, unexpected_field: 'x' });
    for (const [name, value] of Object.entries(valid)) {
      const { [name]: _removed, ...without } = valid as Record<string, unknown>;
      broken.push(without, { ...valid, [name]: typeof value === 'string' ? 12345 : 'x' });
    }
  }
  return broken;
}

function jsonSchemas(content: Spec | undefined): unknown[] {
  return Object.entries(content ?? {})
    .filter(([type]) => type.includes('json'))
    .map(([, media]) => (media as Spec).schema)
    .filter(Boolean);
}

/**
 * src/http/validator-shared-components.ts compiles each operation's schemas against the component
 * schemas registered with the validator's Ajv, not against a copy of the spec in every root: the
 * verdicts and errors must be the validator's own, for every request body and JSON response.
 */
describe('express-openapi-validator operations compiled over the shared component schemas', function () {
  this.timeout(120_000);

  const { apiDoc, apiDocRes, ajvOpts } = preparedSpec();

  /** Every operation's [name, schema] pairs, from the request or the response side of the spec. */
  /** Every operation's distinct schemas (most error responses share one), named by their first use. */
  function operations(spec: Spec, pick: (operation: Spec) => unknown[]): Array<[string, unknown]> {
    const found = new Map<string, [string, unknown]>();
    for (const [path, item] of Object.entries(spec.paths as Spec))
      for (const [method, operation] of Object.entries(item as Spec))
        if (typeof operation === 'object' && operation && 'responses' in operation)
          pick(operation).forEach((schema, i) => {
            const text = JSON.stringify(schema);
            if (!found.has(text)) found.set(text, [`${method} ${path} #${i}`, schema]);
          });
    return [...found.values()];
  }

  /**
   * Compiles one root holding every schema (`s0`, `s1`, …) both ways and compares each schema's
   * verdicts: one root, so that the validator's own way walks the spec once, not once per schema.
   */
  function compare(ajv: Ajv, spec: Spec, schemas: Array<[string, unknown]>, wrap: Wrap): number {
    const properties = Object.fromEntries(schemas.map(([, schema], i) => [`s${i}`, wrap(schema)]));
    const root = { type: 'object', properties, components: spec.components, paths: spec.paths };
    const shared = compileWithoutSpecCopy(ajv, root);
    expect(shared, 'compiles against the registered components').to.be.a('function');
    const own = compiledWithSpecCopy(ajv, root, 'with a copy of the spec');
    let compared = 0;
    schemas.forEach(([name, schema], i) => {
      for (const value of values(schema, spec)) {
        const data = { [`s${i}`]: wrap.data(value) };
        expect(verdict(shared!, data), `${name}: ${JSON.stringify(value)}`).to.deep.equal(
          verdict(own, data),
        );
        compared++;
      }
    });
    return compared;
  }

  it("gives every JSON response body the validator's own verdict and errors", () => {
    const ajv = createResponseAjv(apiDocRes, ajvOpts.response);
    const schemas = operations(apiDocRes, (operation) =>
      Object.values(operation.responses as Spec).flatMap((response) =>
        jsonSchemas((response as Spec).content),
      ),
    );
    expect(schemas.length).to.be.greaterThan(50);
    // As the response validator wraps a body.
    const wrap: Wrap = Object.assign(
      (schema: unknown) => ({ type: 'object', properties: { response: schema } }),
      { data: (value: unknown) => ({ response: value }) },
    );
    expect(compare(ajv, apiDocRes, schemas, wrap)).to.be.greaterThan(500);
  });

  it("gives every JSON request body the validator's own verdict and errors", () => {
    const ajv = createRequestAjv(apiDoc, ajvOpts.request);
    const schemas = operations(apiDoc, (operation) => jsonSchemas(operation.requestBody?.content));
    expect(schemas.length).to.be.greaterThan(30);
    // As the request validator wraps a body.
    const wrap: Wrap = Object.assign(
      (schema: unknown) => ({
        required: ['body'],
        properties: { query: {}, headers: {}, params: {}, cookies: {}, body: schema },
      }),
      {
        data: (value: unknown) => ({
          query: {},
          headers: {},
          params: {},
          cookies: {},
          body: value,
        }),
      },
    );
    expect(compare(ajv, apiDoc, schemas, wrap)).to.be.greaterThan(300);
  });
});
