import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { CONTRACT_FILES, readContract } from '../../scripts/api-diff.js';
import {
  bumpVersion,
  packedFileName,
  release,
  REPOSITORY_FILES,
  type ReleaseFiles,
} from '../../scripts/api-versioning.js';
import { GRAPHQL_FILES } from '../../scripts/graphql-diff.js';
import { editedSpec, withNickname, type Spec, type SpecEdit } from '../helpers/contract-probes.js';

describe('contract release (npm run api:release)', function () {
  this.timeout(60_000);

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

  function editCurrent(edit: SpecEdit): void {
    fs.writeFileSync(files.current, stringify(editedSpec(edit)));
  }

  const sdkVersion = () =>
    (JSON.parse(fs.readFileSync(files.sdkPackage, 'utf8')) as { version: string }).version;
  const specVersion = (file: string) => (readContract(file) as Spec).info.version as string;

  const kinds: Array<[string, SpecEdit, string, string, string]> = [
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
