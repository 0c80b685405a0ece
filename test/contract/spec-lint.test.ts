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
const scripts: Record<string, string> = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;

/** The stages of `npm run lint:spec` that read a spec's YAML and structure (Spectral aside). */
type Stage = 'lint:spec:yaml' | 'lint:spec:structure';

/** One textual edit of the spec (text, not a parsed tree: some breakages live in the YAML itself). */
interface Breakage {
  name: string;
  find: string;
  replace: string;
  /** What each stage must say about it (a stage left out may pass it). */
  says: Partial<Record<Stage, string[]>>;
}

const breakages: Breakage[] = [
  {
    name: 'a flow mapping split by an unquoted comma',
    find: "description: 'Whether the charge succeeded (it may be only authorised, see `captured`).' }",
    replace: 'description: Whether the charge succeeded (it may be only authorised, see `captured`). }',
    says: {
      'lint:spec:yaml': ['Empty mapping values are forbidden', 'yml/no-empty-mapping-value'],
      'lint:spec:structure': ['struct', 'Property `see `captured`).` is not expected here'],
    },
  },
  {
    // An example's object may have any key, so only the YAML stage can tell.
    name: 'a flow mapping split by an unquoted comma in an example',
    find: 'examples: [{ object: list, has_more: false, url: /v1/charges }]',
    replace: 'examples: [{ object: list, has_more: false, url: /v1/charges, newest first }]',
    says: { 'lint:spec:yaml': ['Empty mapping values are forbidden'] },
  },
  {
    name: 'a duplicate key',
    find: "        metadata: { $ref: '#/components/schemas/Metadata' }\n        paid:",
    replace: "        metadata: { $ref: '#/components/schemas/Metadata' }\n        metadata: { type: object }\n        paid:",
    says: { 'lint:spec:yaml': ['Map keys must be unique'], 'lint:spec:structure': ['duplicated mapping key'] },
  },
  {
    name: 'a key that no keyword allows in its place',
    find: 'api_version: { type: string, maxLength: 32 }',
    replace: 'api_version: { type: string, maxLenght: 32 }',
    says: { 'lint:spec:structure': ['struct', 'Property `maxLenght` is not expected here'] },
  },
  {
    name: 'a scope its OAuth 2 scheme does not declare',
    find: '            payment_intents:read: Read payment intents.\n',
    replace: '',
    says: {
      'lint:spec:structure': ['security-scopes-defined', 'The "payment_intents:read" scope is not defined in the "oauth2" security scheme'],
    },
  },
  {
    name: 'a webhook without an operationId',
    find: '      operationId: notifyCustomerCreated\n',
    replace: '',
    says: { 'lint:spec:structure': ['operation-operationId', 'Operation object should contain `operationId` field'] },
  },
];

interface Outcome {
  failed: boolean;
  output: string;
}

/**
 * A stage's command, as package.json states it, on some files: run as npm would run it but without
 * npm's start-up (`NAME=value … command args…`), from `cwd` (ESLint lints only files below it).
 */
async function runStage(stage: Stage, files: string[], cwd: string): Promise<Outcome> {
  const words = scripts[stage].split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, value] = words.shift()!.split('=');
    env[name] = value;
  }
  const [command, ...args] = words;
  const absolute = args.map((arg) => (arg.endsWith('.yaml') || arg.endsWith('.js') ? path.join(root, arg) : arg));
  try {
    const { stdout, stderr } = await run(path.join(root, 'node_modules/.bin', command), [...absolute, ...files], {
      cwd,
      env: { ...process.env, ...env },
      // ESLint's JSON report of every copy of the spec runs to several MiB, beyond execFile's 1 MiB default.
      maxBuffer: 256 * 1024 * 1024,
    });
    return { failed: false, output: stdout + stderr };
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    return { failed: true, output: stdout + stderr };
  }
}

/** The YAML stage on several files in one run, with ESLint's JSON report split by file. */
async function yamlStage(files: string[], cwd: string): Promise<Map<string, Outcome>> {
  const { output } = await runStage('lint:spec:yaml', ['--format', 'json', ...files], cwd);
  const report: Array<{ filePath: string; errorCount: number; messages: Array<{ ruleId: string | null; message: string }> }> =
    JSON.parse(output);
  return new Map(
    report.map((file) => [
      path.basename(file.filePath),
      { failed: file.errorCount > 0, output: file.messages.map((m) => `${m.message}  ${m.ruleId ?? ''}`).join('\n') },
    ]),
  );
}

describe('Spec lint (npm run lint:spec)', function () {
  // Each run of a linter parses the whole spec (about a second of CPU); the runs go side by side.
  this.timeout(60_000);

  let dir: string | undefined;
  /** Each copy's outcome in each stage, by the copy's name. */
  const results = new Map<string, Record<Stage, Outcome>>();

  before(async function () {
    requireProcesses(this);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-lint-'));
    const copies = new Map<string, string>([['the spec as it is', spec]]);
    for (const { name, find, replace } of breakages) {
      // An edit that no longer applies would make its test pass on the unchanged spec.
      expect(spec.split(find), `"${name}": the text to edit occurs once`).to.have.length(2);
      copies.set(name, spec.replace(find, replace));
    }
    const files = new Map([...copies.keys()].map((name, index) => [name, `openapi-${index}.yaml`]));
    for (const [name, text] of copies) fs.writeFileSync(path.join(dir, files.get(name)!), text);
    // ESLint lints every copy in one run and reports per file; Redocly stops at the first file it
    // cannot parse, so it reads each copy on its own, and only those a test asks it about.
    const names = [...copies.keys()];
    const structural = names.filter((name) => name === 'the spec as it is' || breakages.some((b) => b.name === name && b.says['lint:spec:structure']));
    const [yaml, structure] = await Promise.all([
      yamlStage(names.map((name) => files.get(name)!), dir),
      Promise.all(structural.map((name) => runStage('lint:spec:structure', [files.get(name)!], dir!))),
    ]);
    for (const name of names) {
      const outcomes = { 'lint:spec:yaml': yaml.get(files.get(name)!)! } as Record<Stage, Outcome>;
      const index = structural.indexOf(name);
      if (index >= 0) outcomes['lint:spec:structure'] = structure[index];
      results.set(name, outcomes);
    }
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the YAML stage, Spectral, then the structural stage', () => {
    expect(scripts['lint:spec']).to.equal(
      'npm run lint:spec:yaml -- openapi/openapi.yaml && spectral lint --fail-severity warn openapi/openapi.yaml && ' +
        'npm run lint:spec:structure -- openapi/openapi.yaml',
    );
  });

  it('passes the spec as it is', () => {
    for (const stage of ['lint:spec:yaml', 'lint:spec:structure'] as const) {
      const { failed, output } = results.get('the spec as it is')![stage];
      expect(failed, `${stage}: ${output}`).to.equal(false);
    }
  });

  for (const { name, says } of breakages) {
    it(`fails ${name}`, () => {
      for (const [stage, words] of Object.entries(says) as Array<[Stage, string[]]>) {
        const { failed, output } = results.get(name)![stage];
        expect(failed, `${stage}: ${output}`).to.equal(true);
        for (const word of words) expect(output, stage).to.include(word);
      }
    });
  }
});
