import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { requireProcesses } from '../helpers/fast-run.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const spec = fs.readFileSync(path.join(root, 'openapi/openapi.yaml'), 'utf8');

/** One textual edit of the spec (text, not a parsed tree: the breakages live in the YAML itself). */
interface Breakage {
  name: string;
  find: string;
  replace: string;
  /** What the lint's output must say about it. */
  says: string[];
}

const breakages: Breakage[] = [
  {
    name: 'a flow mapping split by an unquoted comma',
    find: "description: 'Whether the charge succeeded (it may be only authorised, see `captured`).' }",
    replace: 'description: Whether the charge succeeded (it may be only authorised, see `captured`). }',
    says: ['struct', 'Property `see `captured`).` is not expected here'],
  },
  {
    name: 'a duplicate key',
    find: '        metadata: { $ref: \'#/components/schemas/Metadata\' }\n        paid:',
    replace: "        metadata: { $ref: '#/components/schemas/Metadata' }\n        metadata: { type: object }\n        paid:",
    says: ['duplicated mapping key'],
  },
  {
    name: 'a key that no keyword allows in its place',
    find: 'api_version: { type: string, maxLength: 32 }',
    replace: 'api_version: { type: string, maxLenght: 32 }',
    says: ['struct', 'Property `maxLenght` is not expected here'],
  },
  {
    name: 'a scope its OAuth 2 scheme does not declare',
    find: '            payment_intents:read: Read payment intents.\n',
    replace: '',
    says: ['security-scopes-defined', 'The "payment_intents:read" scope is not defined in the "oauth2" security scheme'],
  },
  {
    name: 'a webhook without an operationId',
    find: '      operationId: notifyCustomerCreated\n',
    replace: '',
    says: ['operation-operationId', 'Operation object should contain `operationId` field'],
  },
];

const scripts: Record<string, string> = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;

/**
 * The command of `npm run lint:spec:structure` (the part of `npm run lint:spec` after Spectral) on
 * one file, run as npm would run it but without npm's start-up: `NAME=value … command args…`.
 */
async function lint(file: string): Promise<{ failed: boolean; output: string }> {
  const words = scripts['lint:spec:structure'].split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, value] = words.shift()!.split('=');
    env[name] = value;
  }
  const [command, ...args] = words;
  try {
    const { stdout, stderr } = await run(path.join(root, 'node_modules/.bin', command), [...args, file], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    return { failed: false, output: stdout + stderr };
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    return { failed: true, output: stdout + stderr };
  }
}

describe('Spec lint (npm run lint:spec)', function () {
  // Each run of the structural lint parses the whole spec (about a second); they run side by side.
  this.timeout(60_000);

  let dir: string;
  const results = new Map<string, { failed: boolean; output: string }>();

  before(async function () {
    requireProcesses(this);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-lint-'));
    const copies: Array<[string, string]> = [['the spec as it is', spec]];
    for (const { name, find, replace } of breakages) {
      // An edit that no longer applies would make its test pass on the unchanged spec.
      expect(spec.split(find), `"${name}": the text to edit occurs once`).to.have.length(2);
      copies.push([name, spec.replace(find, replace)]);
    }
    await Promise.all(
      copies.map(async ([name, text], index) => {
        const file = path.join(dir, `openapi-${index}.yaml`);
        fs.writeFileSync(file, text);
        results.set(name, await lint(file));
      }),
    );
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs as part of npm run lint:spec, after Spectral', () => {
    expect(scripts['lint:spec']).to.match(/^spectral lint .* && npm run lint:spec:structure -- openapi\/openapi\.yaml$/);
  });

  it('passes the spec as it is', () => {
    const { failed, output } = results.get('the spec as it is')!;
    expect(failed, output).to.equal(false);
  });

  for (const { name, says } of breakages) {
    it(`fails ${name}`, () => {
      const { failed, output } = results.get(name)!;
      expect(failed, output).to.equal(true);
      for (const words of says) expect(output).to.include(words);
    });
  }
});
