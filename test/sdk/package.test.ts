import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { useTestServer } from '../helpers/test-server.js';

const SDK_DIR = fileURLToPath(new URL('../../sdk/', import.meta.url));

/**
 * What an integrator does: pack the SDK, install the tarball into an empty project, and use it
 * from plain Node (no TypeScript, no access to this repository's sources).
 */
describe('the SDK as a package', function () {
  this.timeout(120_000);
  const server = useTestServer('sqlite', {}, { per: 'suite' });
  let project: string;

  before(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'));
  });
  after(() => {
    fs.rmSync(project, { recursive: true, force: true });
  });

  it('packs with its compiled code and types, installs, and talks to the server', async () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', project], { cwd: SDK_DIR, encoding: 'utf8' }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed[0].files.map((f) => f.path);
    expect(files).to.include.members(['dist/index.js', 'dist/index.d.ts', 'package.json', 'README.md']);

    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(project, packed[0].filename)], {
      cwd: project,
      stdio: 'ignore',
    });
    fs.writeFileSync(
      path.join(project, 'use.mjs'),
      `import { createClient, verifyWebhook } from '@payments-api/sdk';
       const payments = createClient({ apiKey: process.env.KEY, baseUrl: process.env.URL });
       const charge = await payments.createCharge({ amount: 1200, currency: 'usd', source: 'tok_visa' });
       console.log(JSON.stringify({ id: charge.data.id, status: charge.data.status, verify: typeof verifyWebhook }));`,
    );
    // Not execFileSync: the server runs in this process and must keep answering.
    const { stdout } = await promisify(execFile)('node', ['use.mjs'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, KEY: server.api.apiKey!, URL: server.url },
    });
    const used = JSON.parse(stdout) as { id: string; status: string; verify: string };
    expect(used.status).to.equal('succeeded');
    expect(used.id).to.match(/^ch_/);
    expect(used.verify).to.equal('function');
  });
});
