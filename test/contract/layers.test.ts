import { expect } from 'chai';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The architecture's rules are lint rules (eslint.config.js): these cases prove that `npm run lint`
 * fails when a file breaks them, and passes the imports the layers allow.
 */
describe('layers of src/ (lint rules)', () => {
  const eslint = new ESLint({ cwd: ROOT });

  async function problems(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${code}\n`, { filePath: `${ROOT}/${filePath}` });
    return result.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax').map((m) => m.message);
  }

  const refused: Array<[string, string, string]> = [
    ['a resource importing the REST door', 'src/resources/charges/x.ts', "import '../../http/binder.js';"],
    ['a resource importing the GraphQL door', 'src/resources/charges/x.ts', "import '../../graphql/errors.js';"],
    ['a resource importing Express', 'src/resources/charges/x.ts', "import express from 'express';\nvoid express;"],
    ['the core importing a resource', 'src/operations/x.ts', "import '../resources/handlers.js';"],
    ['the webhook worker importing a door', 'src/webhooks/x.ts', "import '../http/binder.js';"],
    ['the webhook worker importing the edge', 'src/webhooks/x.ts', "import '../edge/request-id.js';"],
    ['the edge importing the REST door', 'src/edge/x.ts', "import '../http/binder.js';"],
    ['the edge importing the GraphQL door', 'src/edge/x.ts', "import '../graphql/http-handler.js';"],
    ['the REST door importing the GraphQL door', 'src/http/x.ts', "import '../graphql/errors.js';"],
    ['the CLI importing a door', 'src/cli/x.ts', "import '../http/binder.js';"],
    ['the CLI importing Express', 'src/cli/x.ts', "import express from 'express';\nvoid express;"],
    ['the database module importing the core', 'src/db/x.ts', "import '../operations/operations.js';"],
    ['a folder importing the configuration', 'src/http/x.ts', "import '../config.js';"],
    ['a driver imported outside src/db/', 'src/live-events/x.ts', "import pg from 'pg';\nvoid pg;"],
    ['a dialect check outside src/db/', 'src/webhooks/x.ts', "export const f = (db: { dialect: string }) => db.dialect === 'postgres';"],
    ['a resource folder importing one of its own layer', 'src/resources/charges/x.ts', "import '../refunds/refunds.service.js';"],
    ['the payments module importing a payment resource above it', 'src/resources/payments/x.ts', "import '../charges/charges.service.js';"],
    ['customers importing the payments module', 'src/resources/customers/x.ts', "import '../payments/charges.repo.js';"],
    ['events importing the webhook deliveries', 'src/resources/events/x.ts', "import '../webhook-deliveries/webhook-deliveries.repo.js';"],
  ];
  for (const [what, file, code] of refused) {
    it(`refuses ${what}`, async () => {
      expect(await problems(file, code)).to.have.length.greaterThan(0);
    });
  }

  const allowed: Array<[string, string, string]> = [
    ['a resource importing the core and the database', 'src/resources/charges/x.ts', "import '../../operations/operations.js';\nimport '../../db/database.js';"],
    [
      'a payment resource importing the payments module and the resource layers below it',
      'src/resources/refunds/x.ts',
      "import '../payments/refunds.repo.js';\nimport '../customers/customers.service.js';\nimport '../events/events.service.js';\nimport '../shared/params.js';",
    ],
    ['the resource map importing every resource folder', 'src/resources/handlers.ts', "import './charges/charges.handlers.js';\nimport './payments/charges.repo.js';"],
    ['the GraphQL door importing the REST door and the core', 'src/graphql/x.ts', "import '../http/bodies.js';\nimport '../operations/run-operation.js';"],
    ['the REST door importing the edge', 'src/http/x.ts', "import '../edge/door.js';\nimport '../edge/request-id.js';"],
    ['the edge importing the authenticator and the core', 'src/edge/x.ts', "import '../auth/authenticator.js';\nimport '../operations/run-operation.js';"],
    ['the database module importing a driver and checking the dialect', 'src/db/x.ts', "import pg from 'pg';\nexport const f = (k: string) => k === 'postgres' && pg;"],
    ['the CLI importing the webhook signing and ids', 'src/cli/x.ts', "import '../webhooks/signing.js';\nimport '../domain/ids.js';"],
    ['the composition root importing every folder', 'src/composition.ts', "import './http/binder.js';\nimport './graphql/subscriptions.js';\nimport './config.js';"],
  ];
  for (const [what, file, code] of allowed) {
    it(`allows ${what}`, async () => {
      expect(await problems(file, code)).to.deep.equal([]);
    });
  }
});
