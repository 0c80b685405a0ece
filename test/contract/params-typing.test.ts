/**
 * The compiler half of "no request field is silently dropped": a property added to a request
 * schema (hence to its generated params type) fails `tsc` in the service that must handle it,
 * naming the property, until the service reads it (see src/resources/shared/params.ts).
 *
 * Proved on a scratch copy of src/ and generated/ in a temporary directory, where every params
 * type the spec's request bodies use gets one extra optional property.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { requireProcesses } from '../helpers/fast-run.js';
import { bodyOperations, loadSpec } from '../helpers/spec-walk.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/**
 * Request schemas whose unknown fields are ignored on purpose, so that no field is ever "not read":
 * the token endpoint's form, which RFC 6749 §3.2 requires to ignore parameters it does not use.
 */
const OPEN_BY_DESIGN = new Set(['AccessTokenRequest']);

/** The schemas the spec's request bodies name (a schema that only aliases another is skipped by the caller). */
function requestSchemaNames(): string[] {
  const names = bodyOperations(loadSpec()).map((operation) => String(operation.requestSchema.$ref).split('/').at(-1)!);
  return [...new Set(names)].filter((name) => !OPEN_BY_DESIGN.has(name));
}

/** Adds `probe_<name>?: string` to each named params type of a copy of generated/openapi.ts. */
function withExtraProperties(generated: string, names: readonly string[]): { source: string; added: string[] } {
  const added: string[] = [];
  let source = generated;
  for (const name of names) {
    const property = `probe_${name.replace(/[A-Z]/g, (c, i: number) => (i ? '_' : '') + c.toLowerCase())}`;
    const object = new RegExp(`^    ${name}: \\{$`, 'm');
    const empty = new RegExp(`^    ${name}: Record<string, never>;$`, 'm');
    if (object.test(source)) source = source.replace(object, `    ${name}: {\n      ${property}?: string;`);
    else if (empty.test(source)) source = source.replace(empty, `    ${name}: { ${property}?: string };`);
    else continue; // an alias of another params type (`CustomerUpdateParams`): covered through it
    added.push(property);
  }
  return { source, added };
}

/** Runs tsc on the services of a scratch copy of the project and returns its diagnostics. */
async function typecheckServicesWith(generatedOpenapi: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'params-typing-'));
  try {
    fs.cpSync(path.join(root, 'src'), path.join(dir, 'src'), { recursive: true });
    fs.cpSync(path.join(root, 'generated'), path.join(dir, 'generated'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'generated/openapi.ts'), generatedOpenapi);
    fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: path.join(root, 'tsconfig.json'), include: ['src/resources/**/*.service.ts'] }),
    );
    try {
      await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', path.join(dir, 'tsconfig.json'), '--noEmit']);
      return '';
    } catch (error) {
      return String((error as { stdout?: string }).stdout);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('request params are read exhaustively', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(180_000);

  it('fails the typecheck in the service, naming the property, when a params type gains one it does not read', async () => {
    const generated = fs.readFileSync(path.join(root, 'generated/openapi.ts'), 'utf8');
    const { source, added } = withExtraProperties(generated, requestSchemaNames());
    expect(added).to.include.members(['probe_customer_create_params', 'probe_charge_update_params', 'probe_webhook_retry_params']);
    expect(added).to.have.length.above(10);
    const diagnostics = await typecheckServicesWith(source);
    for (const property of added) {
      // In the service, or in the one module that reads a shape several services take (a payment
      // method's data: src/resources/payments/payment-method-data.ts).
      const inService = String.raw`src/resources/[a-z-]+/[a-z-]+(?:\.service)?\.ts\(\d+,\d+\): error `;
      const named = `request parameter not read by the service: ${property}(?![a-z_])`;
      expect(diagnostics, property).to.match(new RegExp(`${inService}.*${named}`));
    }
  });
});
