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

/** The outcome of checking: the contents that passed, a failure, or abandoned for a newer change. */
export type CheckResult = { passed: Map<string, string> } | { failure: Failure } | { aborted: true };

/** Parses each contract in this process (a second, not the generators' ten): the commonest slip fails fast. */
function parseContracts(contents: ReadonlyMap<string, string>): Failure | undefined {
  const spec = parseDocument(contents.get('openapi/openapi.yaml') ?? '');
  if (spec.errors.length > 0) return { step: 'openapi/openapi.yaml does not parse', output: spec.errors.map((e) => e.message).join('\n') };
  try {
    buildSchema(contents.get('graphql/schema.graphql') ?? '');
  } catch (error) {
    return { step: 'graphql/schema.graphql does not build', output: String(error instanceof Error ? error.message : error) };
  }
  return undefined;
}

/**
 * Runs a command in its own process group, so that abandoning it stops the tools it starts too
 * (the generators run as children of scripts/generate.mjs). Resolves to its output on failure,
 * undefined on success, 'aborted' when the signal fired.
 */
function runStep(root: string, command: string, args: string[], signal: AbortSignal): Promise<string | undefined | 'aborted'> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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

/**
 * Checks the contracts as they are now in `root`: parses them, then regenerates the code and
 * lints the spec side by side. Resolves to the contents that passed (to be served), or the first
 * failure, or `aborted` once `signal` fires.
 */
export async function checkContracts(root: string, signal: AbortSignal): Promise<CheckResult> {
  const contents = new Map<string, string>();
  for (const file of CONTRACTS) {
    try {
      contents.set(file, fs.readFileSync(path.join(root, file), 'utf8'));
    } catch (error) {
      // A file read mid-save (deleted, not yet written again): a failure to report, never a crash.
      return { failure: { step: `${file} cannot be read`, output: String(error) } };
    }
  }
  const unparsed = parseContracts(contents);
  if (unparsed) return { failure: unparsed };
  const steps: Array<[step: string, command: string, args: string[]]> = [
    ['code generation failed', process.execPath, ['scripts/generate.mjs']],
    // All three stages of the spec lint, as CI runs them: the strict YAML, Spectral, Redocly.
    ['spec lint failed', 'npm', ['run', '--silent', 'lint:spec']],
  ];
  const outputs = await Promise.all(steps.map(([, command, args]) => runStep(root, command, args, signal)));
  if (signal.aborted || outputs.includes('aborted')) return { aborted: true };
  const failed = outputs.findIndex((output) => output !== undefined);
  if (failed !== -1) return { failure: { step: steps[failed][0], output: outputs[failed]! } };
  return { passed: contents };
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
