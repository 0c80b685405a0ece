import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { requireProcesses } from '../helpers/fast-run.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/** Runs tsc with the project's options on one extra file and returns its diagnostics. */
async function typecheck(source: string): Promise<string> {
  const file = path.join(root, 'test/contract/.typing-probe.ts');
  const config = path.join(root, 'test/contract/.typing-probe.tsconfig.json');
  fs.writeFileSync(file, source);
  fs.writeFileSync(config, JSON.stringify({ extends: '../../tsconfig.json', include: ['./.typing-probe.ts'] }));
  try {
    await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', config, '--noEmit']);
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout);
  } finally {
    fs.rmSync(file, { force: true });
    fs.rmSync(config, { force: true });
  }
}

describe('typed handlers', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(120_000);

  it('fails the typecheck, naming the operation, when a handler is missing or returns what the spec does not declare', async () => {
    const diagnostics = await typecheck(`
      import type { Handlers } from '../../src/operations/operations.js';
      import { handlers } from '../../src/resources/handlers.js';
      const { retrieveRefund: _missing, ...withoutOne } = handlers;
      export const incomplete = withoutOne satisfies Handlers;
      export const wrongStatus = {
        ...handlers,
        retrieveCharge: async () => ({ status: 201 as const, body: {} as never }),
      } satisfies Handlers;
    `);
    expect(diagnostics).to.match(/retrieveRefund/);
    expect(diagnostics).to.match(/retrieveCharge/);
  });

  it('reports a new operation of the spec without a handler first, in one short line naming it', async () => {
    // A copy of src/ and generated/ (sdk/ linked) where the generated types gained an operation nobody handles.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'handler-typing-'));
    try {
      fs.cpSync(path.join(root, 'src'), path.join(copy, 'src'), { recursive: true });
      fs.cpSync(path.join(root, 'generated'), path.join(copy, 'generated'), { recursive: true });
      fs.symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
      // The CLI (src/cli) calls the server through the SDK's source.
      fs.symlinkSync(path.join(root, 'sdk'), path.join(copy, 'sdk'));
      fs.writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ type: 'module' }));
      const types = path.join(copy, 'generated/openapi.ts');
      const generated = fs.readFileSync(types, 'utf8');
      expect(generated).to.include('export interface operations {\n');
      fs.writeFileSync(
        types,
        generated.replace('export interface operations {\n', 'export interface operations {\n    frobnicateWidget: operations["retrieveRefund"];\n'),
      );
      const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
      fs.writeFileSync(path.join(copy, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src', 'generated'] }));
      const diagnostics = await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', path.join(copy, 'tsconfig.json'), '--noEmit'], {
        cwd: copy,
      }).then(
        () => '',
        (error: { stdout?: string }) => String(error.stdout),
      );
      const [first] = diagnostics.split('\n');
      expect(first).to.match(/^src\/resources\/handlers\.ts\(\d+,\d+\): error TS2322: /);
      expect(first).to.include('"no handler for operation frobnicateWidget"');
      expect(first.length).to.be.below(160);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
