import { expect } from 'chai';
import { loadSpec } from '../../src/operations/spec.js';
import {
  restoreValidatorStartup,
  speedUpValidatorStartup,
} from '../../src/http/validator-startup.js';
import { preparedSpec, validatorRequire } from '../helpers/validator-internals.js';

const schemaValidatorModule = validatorRequire('./framework/openapi.schema.validator') as {
  OpenAPISchemaValidator: new (options: unknown) => {
    validate(doc: unknown): { errors: unknown[] };
  };
};
const { OpenAPIFramework } = validatorRequire('./framework/index') as {
  OpenAPIFramework: new (args: unknown) => { loadSpec(spec: unknown): Promise<unknown> };
};

/**
 * The start-up shortcuts in src/http/validator-startup.ts must leave the validator with exactly
 * the spec it would have prepared itself: every request and response is checked against that.
 */
describe('express-openapi-validator start-up shortcuts', function () {
  this.timeout(60_000);
  after(() => speedUpValidatorStartup());

  it('prepare the same spec as the validator does by compiling each reference', () => {
    restoreValidatorStartup();
    const own = preparedSpec();
    speedUpValidatorStartup();
    const fast = preparedSpec();
    expect(fast.apiDoc).to.deep.equal(own.apiDoc);
    expect(fast.apiDocRes).to.deep.equal(own.apiDocRes);
  });

  it('still check a spec against the OpenAPI schema when asked, compiling that schema then', () => {
    speedUpValidatorStartup();
    const checker = new schemaValidatorModule.OpenAPISchemaValidator({
      version: '3.1.0',
      validateApiSpec: true,
    });
    expect(checker.validate({ openapi: '3.1.0', paths: {} }).errors).to.have.length.greaterThan(0);
    expect(checker.validate(loadSpec()).errors).to.deep.equal([]);
  });

  it('load a spec of local references as it is, and still resolve one that names another file', async () => {
    speedUpValidatorStartup();
    const framework = new OpenAPIFramework({});
    const local = structuredClone(loadSpec());
    expect(await framework.loadSpec(local)).to.equal(local);
    const external = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { '/a': { $ref: 'no-such-file.yaml#/paths/a' } },
    };
    // Handed to json-schema-ref-parser, which looks for the file.
    await framework.loadSpec(external).then(
      () => expect.fail('a reference to a missing file must not load'),
      (error: Error) => expect(error.message).to.match(/no-such-file\.yaml/),
    );
  });
});
