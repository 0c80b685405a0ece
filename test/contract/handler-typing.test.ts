import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

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
  this.timeout(120_000);

  it('fails the typecheck, naming the operation, when a handler is missing or returns what the spec does not declare', async () => {
    const diagnostics = await typecheck(`
      import type { Handlers } from '../../src/http/operations.js';
      import { handlers } from '../../src/http/handlers.js';
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
});
