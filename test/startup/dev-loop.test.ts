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

/** A copy of the project a test may edit (its contracts, sources, generators; `node_modules` linked). */
function projectCopy(): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-loop-'));
  const entries = ['src', 'generated', 'graphql', 'openapi', 'scripts', 'sdk', 'package.json', 'tsconfig.json'];
  for (const entry of [...entries, 'codegen.ts', 'orval.config.ts', '.spectral.yaml', 'spectral', '.prettierrc.json']) {
    fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

/** The description of `GET /v1/customers` as the running server serves it, or undefined while none answers. */
async function servedDescription(url: string): Promise<string | undefined> {
  const res = await fetch(`${url}/openapi.json`).catch(() => undefined);
  if (!res?.ok) return undefined;
  return ((await res.json()) as { paths: Record<string, { get: { description: string } }> }).paths['/v1/customers'].get.description;
}

/**
 * `npm run dev` as a designer uses it: edit the spec, reload, see the change; break the spec, read
 * one short block saying what is wrong while the last good server keeps answering.
 */
describe('npm run dev', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(180_000);
  let copy: string;
  let dev: ChildProcess | undefined;
  let output = '';

  afterEach(async () => {
    if (dev && dev.exitCode === null && dev.signalCode === null) {
      const exited = new Promise((resolve) => dev!.once('exit', resolve));
      process.kill(dev.pid!, 'SIGTERM');
      await exited;
    }
    fs.rmSync(copy, { recursive: true, force: true });
  });

  it('regenerates and restarts on a spec edit, and keeps the last good server when the spec breaks', async () => {
    copy = projectCopy();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    dev = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
      cwd: copy,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: path.join(copy, 'data'), LOG_LEVEL: 'warn' },
    });
    dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const specFile = path.join(copy, 'openapi/openapi.yaml');
    const spec = fs.readFileSync(specFile, 'utf8');
    expect(spec).to.include(DESCRIPTION);

    await eventually(async () => expect(await servedDescription(url)).to.equal('Customers, newest first.'), 60_000);

    fs.writeFileSync(specFile, spec.replace(DESCRIPTION, 'description: Edited while the server runs.'));
    await eventually(async () => expect(await servedDescription(url)).to.equal('Edited while the server runs.'), 60_000);
    // Regenerated: the generated types carry the edit too.
    expect(fs.readFileSync(path.join(copy, 'generated/openapi.ts'), 'utf8')).to.include('Edited while the server runs.');

    const before = output.length;
    fs.writeFileSync(specFile, `${spec.replace(DESCRIPTION, 'description: Broken.')}\npaths: [\n`);
    await eventually(() => expect(output.slice(before)).to.match(/✖ dev: code generation failed; the server keeps the last good contract/), 60_000);
    const block = output.slice(before).split('✖ dev:')[1].split('\n');
    expect(block.length, 'one short block').to.be.at.most(16);
    expect(await servedDescription(url)).to.equal('Edited while the server runs.');

    const exited = new Promise<number | null>((resolve) => dev!.once('exit', (code) => resolve(code)));
    process.kill(dev.pid!, 'SIGTERM');
    expect(await exited).to.equal(0);
    // Its server went with it.
    expect(await servedDescription(url)).to.equal(undefined);
  });
});
