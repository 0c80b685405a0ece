import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { CONTRACT_FILES, compareContractFiles, hasBreaking } from '../../scripts/api-diff.js';
import { breakingReport } from '../../scripts/api-report.js';
import {
  editedSpec,
  probe,
  removeField,
  withNickname,
  type SpecEdit,
} from '../helpers/contract-probes.js';
import { requireProcesses } from '../helpers/fast-run.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/**
 * Edits that break clients, each on a copy of today's spec (test/helpers/contract-probes.ts), and
 * the command as CI runs it: the published copy is the spec as it is, the current one the spec
 * with one edit. The edits that do not break clients are in api-compatible.test.ts.
 */
describe('REST breaking-change check (npm run api:breaking)', function () {
  // Each comparison of the whole spec takes about a second.
  this.timeout(60_000);

  let dir: string;
  let published: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-breaking-'));
    published = path.join(dir, 'published.yaml');
    fs.copyFileSync(CONTRACT_FILES.current, published);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Writes the spec with one edit as the current contract, and returns its path. */
  function edited(edit: SpecEdit, name = 'current.yaml'): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, stringify(editedSpec(edit)));
    return file;
  }

  const breaking: Array<[string, SpecEdit, string[]]> = [
    [
      'removing an operation',
      (s) => delete s.paths['/v1/charges'].get,
      ['✗ removed operation', 'at /paths/~1v1~1charges/get', 'listCharges (GET /v1/charges)'],
    ],
    [
      'removing a response field',
      (s) => removeField(s.components.schemas.Charge, 'amount_captured'),
      [
        '✗ removed field `amount_captured`',
        'at /components/schemas/Charge/properties/amount_captured',
        'retrieveCharge (GET /v1/charges/{id}): response 200 `amount_captured`',
      ],
    ],
    [
      'removing a field of an error kind that operations share through components/responses',
      (s) => removeField(s.components.schemas.InvalidRequestError, 'request_id'),
      [
        '✗ removed field `request_id`',
        'at /components/schemas/InvalidRequestError/properties/request_id',
        'createCharge (POST /v1/charges): responses 400, default',
      ],
    ],
    [
      'making a request field required',
      (s) => s.components.schemas.ChargeCreateParams.required.push('description'),
      [
        '✗ made field `description` required',
        'at /components/schemas/ChargeCreateParams/required/3',
        'createCharge (POST /v1/charges): request body',
      ],
    ],
    [
      'narrowing an enum',
      (s) => (s.components.schemas.RefundReason.enum = ['duplicate', 'requested_by_customer']),
      [
        '✗ removed enum value "fraudulent"',
        'at /components/schemas/RefundReason/enum/1',
        'createRefund (POST /v1/refunds): request body `reason`',
      ],
    ],
    [
      'narrowing a type',
      (s) => (s.components.schemas.ChargeCreateParams.properties.description.maxLength = 100),
      [
        '✗ changed maxLength from 500 to 100',
        'createCharge (POST /v1/charges): request body `description`',
      ],
    ],
    [
      'removing a status code',
      (s) => delete s.paths['/v1/charges'].post.responses['402'],
      [
        '✗ removed response 402',
        'at /paths/~1v1~1charges/post/responses/402',
        'createCharge (POST /v1/charges)',
      ],
    ],
    [
      'removing a field of a webhook payload',
      (s) => removeField(s.components.schemas.EventEnvelope, 'pending_webhooks'),
      [
        '✗ removed field `pending_webhooks`',
        'webhook customer.created: payload `pending_webhooks`',
      ],
    ],
    [
      'adding a required query parameter',
      (s) =>
        s.paths['/v1/charges'].get.parameters.push({
          name: 'nickname',
          in: 'query',
          required: true,
          schema: { type: 'string' },
        }),
      ['✗ added query parameter `nickname`', 'listCharges (GET /v1/charges)'],
    ],
    [
      "changing a response field's type",
      (s) => (s.components.schemas.Customer.properties.name = { type: ['integer', 'null'] }),
      [
        '✗ replaced type "string" with "integer"',
        'at /components/schemas/Customer/properties/name/type/0',
        'retrieveCustomer (GET /v1/customers/{id}): response 200 `name`',
      ],
    ],
    [
      'a response field that may now be null',
      (s) => (s.components.schemas.Charge.properties.amount_captured.type = ['integer', 'null']),
      [
        '✗ changed type from "integer" to ["integer","null"]',
        'at /components/schemas/Charge/properties/amount_captured/type',
        'retrieveCharge (GET /v1/charges/{id}): response 200 `amount_captured`',
      ],
    ],
    [
      'a request field that may no longer be null',
      (s) => (s.components.schemas.CustomerCreateParams.properties.name.type = 'string'),
      [
        '✗ changed type from ["string","null"] to "string"',
        'createCustomer (POST /v1/customers): request body `name`',
      ],
    ],
    [
      'a property named like an annotation keyword, removed',
      (s) => removeField(s.components.schemas.Customer, 'description'),
      ['✗ removed field `description`', 'at /components/schemas/Customer/properties/description'],
    ],
    [
      "renaming an operation (the SDK's function name)",
      (s) => (s.paths['/v1/charges'].get.operationId = 'listAllCharges'),
      [
        '✗ changed operationId from "listCharges" to "listAllCharges"',
        'listCharges (GET /v1/charges)',
      ],
    ],
  ];
  for (const [change, edit, lines] of breaking) {
    it(`reports ${change} as breaking, naming the operation and the JSON pointer`, () => {
      const { diff, report } = probe(edit);
      expect(hasBreaking(diff), report).to.equal(true);
      expect(report).to.match(/^REST contract: \d+ breaking changes? against published\.yaml:/);
      for (const line of lines) expect(report).to.include(line);
    });
  }

  it('exits non-zero with the list on a breaking change, zero with one line otherwise', async function () {
    requireProcesses(this);
    const tsx = path.join(root, 'node_modules/.bin/tsx');
    const failing = await run(
      tsx,
      [
        'scripts/api-breaking.ts',
        published,
        edited((s) => delete s.paths['/v1/charges'].get, 'broken.yaml'),
      ],
      { cwd: root },
    ).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failing?.code).to.equal(1);
    expect(failing?.stderr).to.include('listCharges (GET /v1/charges)');

    const passing = await run(tsx, ['scripts/api-breaking.ts', published, published], {
      cwd: root,
    });
    expect(passing.stdout.trim().split('\n')).to.have.length(1);
    expect(passing.stdout).to.match(/no breaking change/);
  });

  it('passes a nullable field added to Customer with the examples updated, as a designer writes it', async function () {
    requireProcesses(this);
    const text = fs.readFileSync(CONTRACT_FILES.current, 'utf8');
    const file = path.join(dir, 'nickname.yaml');
    fs.writeFileSync(file, withNickname(text));
    const { stdout } = await run(
      path.join(root, 'node_modules/.bin/tsx'),
      ['scripts/api-breaking.ts', published, file],
      { cwd: root },
    );
    // The field, and each example it shows in (the Customer's example is reused by lists and events).
    expect(stdout.trim()).to.match(
      /^REST contract: no breaking change against .*\(1 non-breaking, 0 deprecated, [1-9]\d* annotations?\)\.$/,
    );
  });

  it("finds no breaking change from the published contract to today's spec", () => {
    const diff = compareContractFiles(CONTRACT_FILES.published, CONTRACT_FILES.current);
    expect(hasBreaking(diff), breakingReport(diff, 'openapi/openapi.published.yaml')).to.equal(
      false,
    );
  });
});
