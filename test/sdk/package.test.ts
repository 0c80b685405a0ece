import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { packedFileName } from '../../scripts/api-versioning.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { useTestServer } from '../helpers/test-server.js';
import { REPO_DIR, typecheck } from './typescript-project.js';

const SDK_DIR = fileURLToPath(new URL('../../sdk/', import.meta.url));

/** The commands of the SDK README's install block (its first `bash` block), comments left out. */
function readmeInstallLines(): string[] {
  const readme = fs.readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
  const block = /^```bash\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

/** A consumer's strict settings; each project adds its runtime's library and types. */
const STRICT = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  exactOptionalPropertyTypes: true,
  noEmit: true,
  // The package's own declarations are what is under test: check them too.
  skipLibCheck: false,
};

/**
 * What an integrator does: pack the SDK and install the tarball into an empty project by the
 * README's own lines, then use it from plain Node and from TypeScript (no access to this
 * repository's sources).
 */
describe('the SDK as a package', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(120_000);
  const server = useTestServer('sqlite', {}, { per: 'suite' });
  let project: string;
  let packedFiles: string[];

  let repository: string;

  // The install lines of the SDK's README, run as written: the repository's path is the only
  // stand-in. The checkout they pack from is a folder linking to this repository's sdk/, so that
  // the tarball is made there, not in the repository.
  before(() => {
    const lines = readmeInstallLines();
    expect(lines).to.have.length(2);
    const [pack, install] = lines;
    const version = (JSON.parse(fs.readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8')) as { version: string }).version;
    expect(install, 'the README installs the file npm pack makes').to.equal(`npm install /path/to/payments-api/${packedFileName(version)}`);
    repository = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-repository-'));
    fs.symlinkSync(SDK_DIR, path.join(repository, 'sdk'));
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const env = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
    execFileSync('sh', ['-c', pack], { cwd: repository, env, stdio: 'ignore' });
    execFileSync('sh', ['-c', install.replace('/path/to/payments-api', repository)], { cwd: project, env, stdio: 'ignore' });
    const tarball = path.join(repository, packedFileName(version));
    packedFiles = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((file) => file.replace(/^package\//, ''));
  });
  after(() => {
    for (const dir of [project, repository]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('packs the compiled code and types of both entry points', () => {
    expect(packedFiles).to.include.members([
      'dist/index.js',
      'dist/index.d.ts',
      'dist/node.js',
      'dist/node.d.ts',
      'package.json',
      'README.md',
    ]);
  });

  it('installs, talks to the server, and verifies a webhook with the /node entry', async () => {
    fs.writeFileSync(
      path.join(project, 'use.mjs'),
      `import { createHmac } from 'node:crypto';
       import * as main from '@payments-api/sdk';
       import { verifyWebhook } from '@payments-api/sdk/node';
       const payments = main.createClient({ apiKey: process.env.KEY, baseUrl: process.env.URL });
       const charge = await payments.createCharge({ amount: 1200, currency: 'usd', source: 'tok_visa' });
       const body = JSON.stringify({ id: 'evt_1', type: 'charge.succeeded' });
       const t = Math.floor(Date.now() / 1000);
       const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_test').update(t + '.' + body).digest('hex');
       console.log(JSON.stringify({
         id: charge.data.id,
         status: charge.data.status,
         event: verifyWebhook(body, header, 'whsec_test').id,
         mainHasWebhooks: 'verifyWebhook' in main || 'createWebhookHandler' in main,
       }));`,
    );
    // Not execFileSync: the server runs in this process and must keep answering.
    const { stdout } = await promisify(execFile)('node', ['use.mjs'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, KEY: server.api.apiKey!, URL: server.url },
    });
    const used = JSON.parse(stdout) as { id: string; status: string; event: string; mainHasWebhooks: boolean };
    expect(used.status).to.equal('succeeded');
    expect(used.id).to.match(/^ch_/);
    expect(used.event).to.equal('evt_1');
    // The main entry stays fetch-only: the Node-only receiver is not in it.
    expect(used.mainHasWebhooks).to.equal(false);
  });

  it("compiles against the installed declarations: the main entry's without @types/node, the /node entry's with it", async () => {
    fs.writeFileSync(
      path.join(project, 'browser.ts'),
      `import { autoPaginate, createClient, type Charge } from '@payments-api/sdk';
       const payments = createClient({ apiKey: 'sk_test_1' });
       const charges: Charge[] = [];
       for await (const charge of autoPaginate((after) => payments.listCharges({ starting_after: after }))) charges.push(charge);
       export {};`,
    );
    fs.writeFileSync(
      path.join(project, 'server.ts'),
      `import { createServer } from 'node:http';
       import { createWebhookHandler } from '@payments-api/sdk/node';
       createServer(createWebhookHandler({ secret: 'whsec_1', onEvent: (event) => console.log(event.id) })).listen(0);`,
    );
    // A browser project: the DOM library and no type packages at all.
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...STRICT, lib: ['ES2023', 'DOM'], types: [] }, files: ['browser.ts'] }),
    );
    // A Node project, with the repository's @types/node (the consumer has none installed).
    fs.writeFileSync(
      path.join(project, 'tsconfig.node.json'),
      JSON.stringify({
        compilerOptions: { ...STRICT, lib: ['ES2023'], types: ['node'], typeRoots: [path.join(REPO_DIR, 'node_modules/@types')] },
        files: ['server.ts'],
      }),
    );
    expect(await typecheck(project)).to.equal('');
    expect(await typecheck(path.join(project, 'tsconfig.node.json'))).to.equal('');
  });
});
