import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '../helpers/api-process.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DESCRIPTION = 'description: Customers, newest first.';
/** Each step waits on the dev process's output or on the server, never on a clock; generous for a busy 2-core machine. */
const STEP_MS = 120_000;

/** A copy of the project a test may edit (its contracts, sources, generators; `node_modules` linked). */
function projectCopy(): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-loop-'));
  const entries = [
    'src',
    'generated',
    'graphql',
    'openapi',
    'scripts',
    'sdk',
    'package.json',
    'tsconfig.json',
  ];
  const lintSettings = ['.spectral.yaml', 'spectral', 'yaml-lint.config.js', 'redocly.yaml'];
  for (const entry of [
    ...entries,
    'codegen.ts',
    'orval.config.ts',
    ...lintSettings,
    '.prettierrc.json',
  ]) {
    fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

/** The description of `GET /v1/customers` as the running server serves it, or undefined while none answers. */
async function servedDescription(url: string): Promise<string | undefined> {
  const res = await fetch(`${url}/openapi.json`).catch(() => undefined);
  if (!res?.ok) return undefined;
  return ((await res.json()) as { paths: Record<string, { get: { description: string } }> }).paths[
    '/v1/customers'
  ].get.description;
}

/** The ways editors save a file; each must be noticed. */
const SAVES: Array<[way: string, save: (file: string, text: string) => void]> = [
  ['in place', (file, text) => fs.writeFileSync(file, text)],
  [
    'by renaming a new file over it (an atomic save: sed -i, most IDEs)',
    (file, text) => {
      fs.writeFileSync(`${file}.tmp`, text);
      fs.renameSync(`${file}.tmp`, file);
    },
  ],
  [
    'by deleting and creating it',
    (file, text) => {
      fs.unlinkSync(file);
      fs.writeFileSync(file, text);
    },
  ],
  [
    'by renaming it to a backup, writing a new one, deleting the backup (vim)',
    (file, text) => {
      fs.renameSync(file, `${file}~`);
      fs.writeFileSync(file, text);
      fs.unlinkSync(`${file}~`);
    },
  ],
];

/**
 * `npm run dev` as a designer uses it, one dev process through every step: edit the spec, reload,
 * see the change, however the editor saves; break the contracts (a spec that does not parse, one
 * that fails the lint, a GraphQL schema that does not build), read one short block saying what is
 * wrong while the last good server keeps answering, even across a restart for a code change; fix
 * them, see the fix.
 */
describe('npm run dev', function () {
  this.timeout(600_000);
  let copy: string;
  let specFile: string;
  let spec: string;
  let schemaFile: string;
  let schema: string;
  let url: string;
  let dev: ChildProcess | undefined;
  let output = '';

  const count = (pattern: RegExp) => output.match(new RegExp(pattern, 'g'))?.length ?? 0;
  /** Asserts that no check failed, naming the failure and what led to it when one did. */
  const noFailure = () => {
    const at = output.indexOf('✖');
    expect(
      at,
      at === -1
        ? ''
        : `a failure was reported:\n${output.slice(Math.max(0, at - 1500), at + 1500)}`,
    ).to.equal(-1);
  };
  const serves = (description: string) =>
    eventually(
      async () => expect(await servedDescription(url)).to.equal(description),
      STEP_MS,
      100,
    );

  before(async function () {
    requireProcesses(this);
    copy = projectCopy();
    specFile = path.join(copy, 'openapi/openapi.yaml');
    spec = fs.readFileSync(specFile, 'utf8');
    schemaFile = path.join(copy, 'graphql/schema.graphql');
    schema = fs.readFileSync(schemaFile, 'utf8');
    expect(spec).to.include(DESCRIPTION);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    dev = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
      cwd: copy,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: path.join(copy, 'data'),
        LOG_LEVEL: 'warn',
      },
    });
    dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await serves('Customers, newest first.');
  });

  after(async () => {
    if (dev && dev.exitCode === null && dev.signalCode === null) {
      const exited = new Promise((resolve) => dev!.once('exit', resolve));
      process.kill(dev.pid!, 'SIGTERM');
      await exited;
    }
    // A server left behind by a dev process that failed: each one this dev process started, by its PID.
    for (const [, pid] of output.matchAll(/dev: server process (\d+) started/g)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone already, as it should be.
      }
    }
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it('notices ten saves in a row, made each way an editor saves, and serves the last', async () => {
    for (let n = 1; n <= 10; n++) {
      const [, save] = SAVES[(n - 1) % SAVES.length];
      const noticed = count(/dev: changed openapi\/openapi\.yaml/);
      save(specFile, spec.replace(DESCRIPTION, `description: Save ${n}.`));
      await eventually(
        () =>
          expect(
            count(/dev: changed openapi\/openapi\.yaml/),
            `save ${n} (${SAVES[(n - 1) % SAVES.length][0]})`,
          ).to.be.greaterThan(noticed),
        STEP_MS,
        20,
      );
    }
    await serves('Save 10.');
    // Regenerated: the generated types carry the edit too.
    expect(fs.readFileSync(path.join(copy, 'generated/openapi.ts'), 'utf8')).to.include('Save 10.');
    noFailure();
  });

  it('serves the last of ten saves made back to back, each way in turn', async () => {
    for (let n = 1; n <= 10; n++)
      SAVES[(n - 1) % SAVES.length][1](
        specFile,
        spec.replace(DESCRIPTION, `description: Burst ${n}.`),
      );
    await serves('Burst 10.');
    noFailure();
  });

  it('keeps serving the last good contract when the spec does not parse, saying why in one short block', async () => {
    const before = output.length;
    SAVES[1][1](specFile, spec.replace(DESCRIPTION, 'description: [Broken.'));
    await eventually(
      () =>
        expect(output.slice(before)).to.include(
          '✖ dev: openapi/openapi.yaml does not parse; the server keeps the last good contract',
        ),
      STEP_MS,
      20,
    );
    const block = output.slice(before).split('✖ dev:')[1].split('\n');
    expect(block.length, 'one short block').to.be.at.most(16);
    expect(block.join('\n')).to.match(/line \d+, column \d+/);
    expect(await servedDescription(url)).to.equal('Burst 10.');
  });

  it('restarts on a code change while the spec is broken, on the last good contract', async () => {
    const before = output.length;
    const source = path.join(copy, 'src/main.ts');
    fs.appendFileSync(source, '\n// A code change while the spec is broken.\n');
    await eventually(
      () => expect(output.slice(before)).to.match(/dev: server process \d+ started/),
      STEP_MS,
      20,
    );
    // Only the new server can answer now: the old one had exited before the new one started.
    await serves('Burst 10.');
    expect(output.slice(before)).to.not.include('the server exited');
  });

  it('keeps serving the last good contract when the spec parses but fails the lint, saying why', async () => {
    const before = output.length;
    const example =
      '      examples: [{ id: cus_D0e4AGBrgVjbtsKZu2euAbcm, object: customer, deleted: true }]\n';
    expect(spec).to.include(example);
    SAVES[2][1](specFile, spec.replace(DESCRIPTION, 'description: Unlinted.').replace(example, ''));
    await eventually(
      () =>
        expect(output.slice(before)).to.include(
          '✖ dev: spec lint failed; the server keeps the last good contract',
        ),
      STEP_MS,
      20,
    );
    const block = output.slice(before).split('✖ dev:')[1].split('\n');
    expect(block.length, 'one short block').to.be.at.most(16);
    expect(block.join('\n')).to.include('DeletedCustomer');
    expect(await servedDescription(url)).to.equal('Burst 10.');
  });

  it('keeps serving the last good contract when the GraphQL schema does not build', async () => {
    const before = output.length;
    SAVES[0][1](
      schemaFile,
      schema.replace(
        'type Refund implements Node {',
        'type Refund implements Node {\n  broken: NoSuchType',
      ),
    );
    await eventually(
      () =>
        expect(output.slice(before)).to.include(
          '✖ dev: graphql/schema.graphql does not build; the server keeps the last good contract',
        ),
      STEP_MS,
      20,
    );
    expect(output.slice(before)).to.include('NoSuchType');
    expect(await servedDescription(url)).to.equal('Burst 10.');
  });

  it('picks the fixed contracts up at once', async () => {
    SAVES[0][1](schemaFile, schema);
    SAVES[3][1](specFile, spec.replace(DESCRIPTION, 'description: Fixed.'));
    await serves('Fixed.');
  });

  it('stops with its server on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) =>
      dev!.once('exit', (code) => resolve(code)),
    );
    process.kill(dev!.pid!, 'SIGTERM');
    expect(await exited).to.equal(0);
    expect(await servedDescription(url)).to.equal(undefined);
  });
});
