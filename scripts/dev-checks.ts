/**
 * The checks `npm run dev` runs on the contracts before the server may take them: they parse,
 * the code generates from them, and the spec lints, as CI checks. A failure is told in one short
 * block; a check a newer change overtook is abandoned, its processes stopped.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildSchema } from 'graphql';
import { parseDocument } from 'yaml';

/** The contract files, from the project's root; the server reads exactly these. */
export const CONTRACTS = ['openapi/openapi.yaml', 'graphql/schema.graphql'] as const;

/** How many lines of a failure the block shows: the first ones say what is wrong. */
const ERROR_LINES = 12;

/** A check that failed: which, and its output. */
export interface Failure {
  step: string;
  output: string;
}

/** What each contract file looked like when read: inode, size and modification time. */
export type Stamps = ReadonlyMap<string, string>;

/**
 * The outcome of checking: the contents that passed, or a failure, each with the stamps of the
 * files as they were read; or abandoned for a newer change; or `unsettled` when a file was absent
 * or moved while being read (a save under way), naming it.
 */
export type CheckResult =
  | { passed: Map<string, string>; stamps: Stamps }
  | { failure: Failure; stamps: Stamps }
  | { aborted: true }
  | { unsettled: string };

/** A contract file's inode, size and modification time, or `absent`: a save moves at least one. */
export function stampOf(root: string, file: string): string {
  try {
    const stat = fs.statSync(path.join(root, file), { throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : 'absent';
  } catch {
    return 'absent';
  }
}

/** Whether any contract file differs now from the stamps it was read with. */
export function movedSince(root: string, stamps: Stamps): boolean {
  return [...stamps].some(([file, stamp]) => stampOf(root, file) !== stamp);
}

/**
 * Reads the contracts, each only when it held still while read (the same stamp before and after,
 * and as many bytes as its size): a text read mid-save is neither checked nor served.
 */
function readContracts(
  root: string,
): { contents: Map<string, string>; stamps: Map<string, string> } | { unsettled: string } {
  const contents = new Map<string, string>();
  const stamps = new Map<string, string>();
  for (const file of CONTRACTS) {
    const before = stampOf(root, file);
    let text: Buffer;
    try {
      text = fs.readFileSync(path.join(root, file));
    } catch {
      return { unsettled: file };
    }
    if (
      before === 'absent' ||
      stampOf(root, file) !== before ||
      before.split(':')[1] !== String(text.length)
    )
      return { unsettled: file };
    contents.set(file, text.toString('utf8'));
    stamps.set(file, before);
  }
  return { contents, stamps };
}

/** Parses each contract in this process (a second, not the generators' ten): the commonest slip fails fast. */
function parseContracts(contents: ReadonlyMap<string, string>): Failure | undefined {
  const spec = parseDocument(contents.get('openapi/openapi.yaml') ?? '');
  if (spec.errors.length > 0)
    return {
      step: 'openapi/openapi.yaml does not parse',
      output: spec.errors.map((e) => e.message).join('\n'),
    };
  try {
    buildSchema(contents.get('graphql/schema.graphql') ?? '');
  } catch (error) {
    return {
      step: 'graphql/schema.graphql does not build',
      output: String(error instanceof Error ? error.message : error),
    };
  }
  return undefined;
}

/**
 * Runs a command in its own process group, so that abandoning it stops the tools it starts too
 * (the generators run as children of scripts/generate.mjs). Resolves to its output on failure,
 * undefined on success, 'aborted' when the signal fired.
 */
function runStep(
  root: string,
  command: string,
  args: string[],
  signal: AbortSignal,
): Promise<string | undefined | 'aborted'> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const abort = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
    };
    signal.addEventListener('abort', abort, { once: true });
    child.on('error', (error) => {
      signal.removeEventListener('abort', abort);
      resolve(String(error));
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', abort);
      resolve(signal.aborted ? 'aborted' : code === 0 ? undefined : output);
    });
  });
}

/** Which generator side (`scripts/generate.mjs --only …`) each contract file feeds. */
const SIDE_OF: Record<(typeof CONTRACTS)[number], 'openapi' | 'graphql'> = {
  'openapi/openapi.yaml': 'openapi',
  'graphql/schema.graphql': 'graphql',
};

/**
 * The text of each contract that the generated code now on disk was generated from; a contract
 * absent here (none generated yet, or a generation that failed or was stopped half way) is
 * generated again.
 */
const generatedFrom = new Map<string, string>();

/** The text of the spec that last passed the lint: a save of the GraphQL schema alone is not linted again. */
let lintedSpec: string | undefined;

/** The arguments of scripts/generate.mjs for the contracts whose generated code is stale. */
function generationFor(contents: ReadonlyMap<string, string>): string[] | undefined {
  const stale = CONTRACTS.filter((file) => generatedFrom.get(file) !== contents.get(file));
  if (stale.length === 0) return undefined;
  return stale.length === CONTRACTS.length ? [] : ['--only', SIDE_OF[stale[0]]];
}

/**
 * Checks the contracts as they are now in `root`: parses them, then regenerates the code (of the
 * contracts that changed since it was last generated) and lints the spec side by side. Resolves to
 * the contents that passed (to be served), or the first failure, or `aborted` once `signal`
 * fires, or `unsettled` when a save was under way.
 */
export async function checkContracts(root: string, signal: AbortSignal): Promise<CheckResult> {
  const read = readContracts(root);
  if ('unsettled' in read) return read;
  const { contents, stamps } = read;
  const unparsed = parseContracts(contents);
  if (unparsed) return { failure: unparsed, stamps };
  const generation = generationFor(contents);
  const spec = contents.get('openapi/openapi.yaml');
  const steps: Array<[step: string, command: string, args: string[]]> = [];
  if (generation)
    steps.push([
      'code generation failed',
      process.execPath,
      ['scripts/generate.mjs', ...generation],
    ]);
  // All three stages of the spec lint, as CI runs them: the strict YAML, Spectral, Redocly.
  if (spec !== lintedSpec)
    steps.push(['spec lint failed', 'npm', ['run', '--silent', 'lint:spec']]);
  // Until it ends well, the generated code is of no known text.
  if (generation)
    for (const file of CONTRACTS)
      if (generatedFrom.get(file) !== contents.get(file)) generatedFrom.delete(file);
  const outputs = await Promise.all(
    steps.map(([, command, args]) => runStep(root, command, args, signal)),
  );
  steps.forEach(([step], index) => {
    if (outputs[index] !== undefined) return;
    if (step === 'spec lint failed') lintedSpec = spec;
    else for (const file of CONTRACTS) generatedFrom.set(file, contents.get(file)!);
  });
  if (signal.aborted || outputs.includes('aborted')) return { aborted: true };
  const failed = outputs.findIndex((output) => output !== undefined);
  if (failed !== -1)
    return { failure: { step: steps[failed][0], output: outputs[failed]! }, stamps };
  return { passed: contents, stamps };
}

/** The one short block a failure prints: what failed, its first lines, and what still runs. */
export function failureBlock({ step, output }: Failure): string {
  const lines = output
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  const shown = lines.slice(0, ERROR_LINES).map((line) => `  ${line}`);
  if (lines.length > ERROR_LINES) shown.push(`  … ${lines.length - ERROR_LINES} more lines`);
  return [`✖ dev: ${step}; the server keeps the last good contract`, ...shown, ''].join('\n');
}
