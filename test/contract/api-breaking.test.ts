import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { stringify } from 'yaml';
import {
  CONTRACT_FILES,
  compareContractFiles,
  compareContracts,
  hasBreaking,
  readContract,
  type ContractDiff,
} from '../../scripts/api-diff.js';
import { breakingReport } from '../../scripts/api-report.js';
import {
  bumpVersion,
  packedFileName,
  release,
  REPOSITORY_FILES,
  type ReleaseFiles,
} from '../../scripts/api-versioning.js';
import { GRAPHQL_FILES } from '../../scripts/graphql-diff.js';
import { requireProcesses } from '../helpers/fast-run.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/** The spec as a loosely typed tree, for editing a copy. */
type Spec = Record<string, any>;

/**
 * The spec's text with `nickname` (nullable, optional) added to Customer and to its example, which
 * the lint requires and which lists and events reuse through a YAML alias.
 */
function withNickname(text: string): string {
  // The example's last field, and the property the field goes after (each once in the spec).
  const example = 'test_clock: null }';
  const property = "        metadata: { $ref: '#/components/schemas/Metadata' }\n        address: { oneOf:";
  expect(text.split(example)).to.have.length(2);
  expect(text.split(property)).to.have.length(2);
  return text
    .replace(example, 'test_clock: null, nickname: null }')
    .replace(
      property,
      "        metadata: { $ref: '#/components/schemas/Metadata' }\n        nickname: { type: [string, 'null'], maxLength: 100 }\n        address: { oneOf:",
    );
}

/**
 * Probe changes are made on copies of today's spec in a temporary folder: the published copy is
 * the spec as it is, the current one the spec with one edit.
 */
describe('REST breaking-change check (npm run api:breaking)', function () {
  // Each comparison of the whole spec takes about a second.
  this.timeout(60_000);

  const spec = readContract(CONTRACT_FILES.current) as Spec;
  let dir: string;
  let published: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-breaking-'));
    published = path.join(dir, 'published.yaml');
    fs.copyFileSync(CONTRACT_FILES.current, published);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Writes the spec with one edit as the current contract, and returns its path. */
  function edited(edit: (copy: Spec) => void, name = 'current.yaml'): string {
    const copy = structuredClone(spec);
    edit(copy);
    const file = path.join(dir, name);
    fs.writeFileSync(file, stringify(copy));
    return file;
  }

  /**
   * Compares today's spec with a copy edited by `edit`, in memory: reading the files back is what
   * the command's own tests (below) cover, and it would cost each probe two parses of the spec.
   */
  function probe(edit: (copy: Spec) => void): { diff: ContractDiff; report: string } {
    const copy = structuredClone(spec);
    edit(copy);
    const diff = compareContracts(structuredClone(spec) as never, copy as never);
    return { diff, report: breakingReport(diff, 'published.yaml') };
  }

  const removeField = (schema: Spec, field: string) => {
    delete schema.properties[field];
    schema.required = schema.required.filter((name: string) => name !== field);
  };

  const breaking: Array<[string, (copy: Spec) => void, string[]]> = [
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

  const compatible: Array<[string, (copy: Spec) => void, RegExp]> = [
    [
      'adding an optional request field',
      (s) => (s.components.schemas.ChargeCreateParams.properties.nickname = { type: 'string' }),
      /\(1 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    [
      'adding an optional response field',
      (s) => (s.components.schemas.Charge.properties.nickname = { type: 'string' }),
      /\(1 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    [
      'adding an operation',
      (s) =>
        (s.paths['/v1/charges/search'] = {
          get: { ...structuredClone(s.paths['/v1/charges'].get), operationId: 'searchCharges' },
        }),
      /\(1 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    [
      'documenting a field next to its $ref',
      (s) =>
        (s.components.schemas.CardError.properties.message.description =
          'Why the card was declined, for people.'),
      /\(0 non-breaking, 0 deprecated, 1 annotation\)/,
    ],
    [
      'deprecating a field',
      (s) => (s.components.schemas.Charge.properties.customer.deprecated = true),
      /\(0 non-breaking, 1 deprecated, 0 annotations\)/,
    ],
    [
      'rewording a description',
      (s) =>
        (s.components.schemas.Charge.properties.captured.description = 'Whether it was captured.'),
      /\(0 non-breaking, 0 deprecated, 1 annotation\)/,
    ],
    [
      'letting a request field be null',
      (s) =>
        (s.components.schemas.ChargeCreateParams.properties.description.type = ['string', 'null']),
      /\(1 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    [
      'adding a required response field',
      (s) => {
        s.components.schemas.Customer.properties.nickname = { type: ['string', 'null'] };
        s.components.schemas.Customer.required.push('nickname');
      },
      /\(2 non-breaking, 0 deprecated, 0 annotations\)/,
    ],
    // The example is shared (a YAML alias) by lists and events: each place is one annotation.
    [
      'adding a field to an example',
      (s) => (s.components.schemas.Customer.examples[0].nickname = null),
      /\(0 non-breaking, 0 deprecated, [1-9]\d* annotations?\)/,
    ],
    [
      "replacing an operation's summary and a schema's title",
      (s) => {
        s.paths['/v1/charges'].get.summary = 'All the charges';
        s.components.schemas.Customer.title = 'A customer';
      },
      /\(0 non-breaking, 0 deprecated, 2 annotations\)/,
    ],
    [
      'adding externalDocs and documentation extensions',
      (s) => {
        s.paths['/v1/charges'].get.externalDocs = { url: 'https://payments-api.invalid/charges' };
        s.paths['/v1/charges'].get['x-codeSamples'] = [
          { lang: 'shell', source: 'curl /v1/charges' },
        ];
        s.components.schemas.Customer['x-internal-note'] = { owner: 'billing' };
      },
      /\(0 non-breaking, 0 deprecated, 3 annotations\)/,
    ],
  ];
  for (const [change, edit, counts] of compatible) {
    it(`does not report ${change} as breaking, and counts it in one line`, () => {
      const { diff, report } = probe(edit);
      expect(hasBreaking(diff), report).to.equal(false);
      expect(report).to.match(
        /^REST contract: no breaking change against published\.yaml \(.*\)\.$/,
      );
      expect(report).to.match(counts);
    });
  }

  it('finds the same changes when it leaves out what is the same on both sides as when it compares everything', () => {
    // An edit that one operation shows, and one that a schema most operations reach shows.
    const edits: Array<(copy: Spec) => void> = [
      (s) => delete s.paths['/v1/charges'].get,
      (s) => (s.components.schemas.Customer.properties.nickname = { type: 'string' }),
    ];
    for (const edit of edits) {
      const copy = structuredClone(spec);
      edit(copy);
      const whole = compareContracts(structuredClone(spec) as never, copy as never, { whole: true });
      expect(whole.groups).to.not.deep.equal([]);
      expect(compareContracts(structuredClone(spec) as never, copy as never)).to.deep.equal(whole);
    }
  });

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

describe('contract release (npm run api:release)', function () {
  this.timeout(60_000);

  const spec = readContract(CONTRACT_FILES.current) as Spec;
  const specText = fs.readFileSync(CONTRACT_FILES.current, 'utf8');
  const schemaText = fs.readFileSync(GRAPHQL_FILES.current, 'utf8');
  let dir: string;
  let files: ReleaseFiles;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-release-'));
    files = {
      current: path.join(dir, 'openapi.yaml'),
      published: path.join(dir, 'openapi.published.yaml'),
      sdkPackage: path.join(dir, 'package.json'),
      changelog: path.join(dir, 'CHANGELOG.md'),
      sdkReadme: path.join(dir, 'README.md'),
      graphqlCurrent: path.join(dir, 'schema.graphql'),
      graphqlPublished: path.join(dir, 'schema.published.graphql'),
    };
    fs.copyFileSync(CONTRACT_FILES.current, files.published);
    fs.copyFileSync(CONTRACT_FILES.current, files.current);
    fs.copyFileSync(GRAPHQL_FILES.current, files.graphqlPublished);
    fs.copyFileSync(GRAPHQL_FILES.current, files.graphqlCurrent);
    fs.writeFileSync(
      files.sdkPackage,
      `${JSON.stringify({ name: '@payments-api/sdk', version: '1.4.2', type: 'module' }, null, 2)}\n`,
    );
    fs.writeFileSync(
      files.sdkReadme,
      '```bash\nnpm pack ./sdk\nnpm install /path/to/payments-api/payments-api-sdk-1.4.2.tgz\n```\n',
    );
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function editCurrent(edit: (copy: Spec) => void): void {
    const copy = structuredClone(spec);
    edit(copy);
    fs.writeFileSync(files.current, stringify(copy));
  }

  const sdkVersion = () =>
    (JSON.parse(fs.readFileSync(files.sdkPackage, 'utf8')) as { version: string }).version;
  const specVersion = (file: string) => (readContract(file) as Spec).info.version as string;

  const kinds: Array<[string, (copy: Spec) => void, string, string, string]> = [
    [
      'a breaking change',
      (s) => delete s.paths['/v1/charges'].get,
      'major',
      '2.0.0',
      '### Breaking\n\n- removed operation (`/paths/~1v1~1charges/get`): listCharges.',
    ],
    [
      'a non-breaking change',
      (s) => (s.components.schemas.ChargeCreateParams.properties.nickname = { type: 'string' }),
      'minor',
      '1.5.0',
      '### Added and relaxed\n\n- added field `nickname` (`/components/schemas/ChargeCreateParams/properties/nickname`): createCharge.',
    ],
    [
      'a documentation change',
      (s) => (s.paths['/v1/charges'].get.summary = 'List the charges'),
      'patch',
      '1.4.3',
      '### Documentation\n\n- changed summary (`/paths/~1v1~1charges/get/summary`): listCharges.',
    ],
  ];
  for (const [change, edit, kind, version, section] of kinds) {
    it(`releases ${change} as a ${kind} version: one version everywhere, a changelog entry, the published copies`, async () => {
      editCurrent(edit);
      const done = await release(files, '2026-01-02');
      expect(done).to.include({ kind, previousVersion: '1.4.2', version });
      expect(sdkVersion()).to.equal(version);
      expect(specVersion(files.current)).to.equal(version);
      expect(fs.readFileSync(files.sdkReadme, 'utf8')).to.include(
        `npm install /path/to/payments-api/${packedFileName(version)}\n`,
      );
      const changelog = fs.readFileSync(files.changelog, 'utf8');
      expect(changelog).to.match(/^# Changelog\n/);
      expect(changelog).to.include(`## ${version} (2026-01-02)\n\n${section}`);
      expect(fs.readFileSync(files.published, 'utf8')).to.equal(
        fs.readFileSync(files.current, 'utf8'),
      );
    });
  }

  it('releases the nickname field (nullable, optional, in the examples) as a minor version, leaving the rest of the spec as written', async () => {
    fs.writeFileSync(files.current, withNickname(specText));
    const done = await release(files, '2026-01-02');
    expect(done).to.include({ kind: 'minor', version: '1.5.0' });
    const changelog = fs.readFileSync(files.changelog, 'utf8');
    expect(changelog).to.include(
      '### Added and relaxed\n\n- added field `nickname` (`/components/schemas/Customer/properties/nickname`)',
    );
    expect(changelog).to.include(
      '### Documentation\n\n- changed examples (`/components/schemas/Customer/examples`)',
    );
    // Only info.version changed in the file besides the edit: comments, anchors and layout stay.
    const expected = withNickname(specText).replace(/^(\s+version: )\S+$/m, '$11.5.0');
    expect(fs.readFileSync(files.current, 'utf8')).to.equal(expected);
  });

  it('publishes the GraphQL schema with the release, and a GraphQL change alone is released too', async () => {
    fs.writeFileSync(
      files.graphqlCurrent,
      schemaText.replace(
        /^type Customer(.*)\{$/m,
        'type Customer$1{\n  "What the customer likes to be called."\n  nickname: String',
      ),
    );
    expect(fs.readFileSync(files.graphqlCurrent, 'utf8')).to.include('nickname: String');
    const done = await release(files, '2026-01-02');
    expect(done).to.include({ kind: 'minor', version: '1.5.0' });
    expect(fs.readFileSync(files.graphqlPublished, 'utf8')).to.equal(
      fs.readFileSync(files.graphqlCurrent, 'utf8'),
    );
    expect(fs.readFileSync(files.changelog, 'utf8')).to.include(
      "### GraphQL\n\n- Field 'nickname' was added to object type 'Customer'",
    );
    expect(specVersion(files.published)).to.equal('1.5.0');
  });

  it('releases a breaking GraphQL change as a major version', async () => {
    const removed = schemaText.replace(
      'type Query {\n  customer(id: ID!): Customer\n',
      'type Query {\n',
    );
    expect(removed).to.not.equal(schemaText);
    fs.writeFileSync(files.graphqlCurrent, removed);
    const done = await release(files, '2026-01-02');
    expect(done).to.include({ kind: 'major', version: '2.0.0' });
    expect(fs.readFileSync(files.changelog, 'utf8')).to.match(
      /### GraphQL\n\n- \*\*Breaking\*\*: Field 'customer' was removed from object type 'Query'/,
    );
  });

  it('puts each new entry above the previous ones', async () => {
    editCurrent((s) => (s.paths['/v1/charges'].get.summary = 'List the charges'));
    await release(files, '2026-01-02');
    editCurrent((s) => (s.paths['/v1/charges'].get.summary = 'List all charges'));
    await release(files, '2026-01-03');
    const changelog = fs.readFileSync(files.changelog, 'utf8');
    expect(changelog.indexOf('## 1.4.4 (2026-01-03)'))
      .to.be.greaterThan(0)
      .and.lessThan(changelog.indexOf('## 1.4.3 (2026-01-02)'));
  });

  it('refuses, writing nothing, when neither contract has changed', async () => {
    let refusal: unknown;
    await release(files, '2026-01-02').catch((error: unknown) => (refusal = error));
    expect(String(refusal)).to.match(/nothing to release/);
    expect(sdkVersion()).to.equal('1.4.2');
    expect(fs.existsSync(files.changelog)).to.equal(false);
  });

  it('bumps only plain MAJOR.MINOR.PATCH versions', () => {
    expect(bumpVersion('0.1.0', 'major')).to.equal('1.0.0');
    expect(bumpVersion('0.1.9', 'minor')).to.equal('0.2.0');
    expect(bumpVersion('0.1.9', 'patch')).to.equal('0.1.10');
    expect(() => bumpVersion('1.0.0-beta.1', 'patch')).to.throw(/MAJOR\.MINOR\.PATCH/);
  });
});

describe('one version', () => {
  it("is the SDK's, the spec's info.version, the published contract's and the one the SDK README installs", () => {
    const version = (
      JSON.parse(fs.readFileSync(REPOSITORY_FILES.sdkPackage, 'utf8')) as { version: string }
    ).version;
    expect((readContract(REPOSITORY_FILES.current) as Spec).info.version).to.equal(version);
    expect((readContract(REPOSITORY_FILES.published) as Spec).info.version).to.equal(version);
    const installs = fs
      .readFileSync(REPOSITORY_FILES.sdkReadme, 'utf8')
      .match(/payments-api-sdk-[^\s/]+\.tgz/g);
    expect(installs).to.deep.equal([packedFileName(version)]);
  });
});
