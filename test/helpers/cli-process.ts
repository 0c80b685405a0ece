/**
 * The `payments` CLI as a real process, for tests that check what a user sees: stdout, stderr and
 * the exit code. It runs bundled (`dist/payments.mjs`, built before the run), the same code
 * `bin/payments.mjs` runs through tsx, which costs each start a second more on a loaded machine;
 * the README's blocks run `bin/payments.mjs` itself. Every process is stopped by PID, with a deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { compiledScript } from './server-entry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const COMPILED_CLI = compiledScript('src/cli/main.ts');
const RUN_DEADLINE_MS = 30_000;
const STOP_GRACE_MS = 5_000;

/** How a finished CLI run ended. */
export interface CliResult {
  /** The exit code; null when it was killed by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A long-running CLI process (`logs tail`, `listen`, …). */
export interface CliProcess {
  /** The complete stdout lines so far. */
  lines(): string[];
  /** The complete stderr lines so far. */
  errLines(): string[];
  /** Resolves with the first stdout line (already written or to come) matching `re`; rejects after `timeoutMs` or if the process exits first. */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  /** As {@link CliProcess.waitForLine}, on stderr. */
  waitForErrLine(re: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGINT by PID, then SIGKILL if it has not exited after a grace period; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * The environment of a CLI process: the test's own, minus what would change the CLI's behaviour
 * behind the test's back (a developer's key or colour settings), plus `env`.
 */
function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['PAYMENTS_API_KEY', 'FORCE_COLOR', 'NO_COLOR', 'DATA_DIR']) delete base[name];
  return { ...base, ...env };
}

function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...COMPILED_CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv(env) });
}

/** Runs `payments …args` to its end (killed after a deadline) and resolves with its exit code and output. */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
  try {
    // 'close', not 'exit': it comes after the pipes are drained, so the output is complete.
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode) => resolve(exitCode));
    });
    return { code, stdout, stderr };
  } finally {
    clearTimeout(deadline);
  }
}

/** Starts `payments …args` and returns a handle to watch its output and stop it. */
export function startCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawnCli(args, env);
  const out = lineCollector(child.stdout!);
  const err = lineCollector(child.stderr!);
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let ended = false;
  void closed.then(() => (ended = true));
  const describe = () => `stdout:\n${out.lines().join('\n')}\nstderr:\n${err.lines().join('\n')}`;
  const waitFor = (collector: LineCollector) => (re: RegExp, timeoutMs = 15_000) =>
    collector.waitFor(re, timeoutMs, closed, describe);
  return {
    lines: out.lines,
    errLines: err.lines,
    waitForLine: waitFor(out),
    waitForErrLine: waitFor(err),
    stop: async () => {
      if (ended) return closed;
      process.kill(child.pid!, 'SIGINT');
      const grace = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      try {
        return await closed;
      } finally {
        clearTimeout(grace);
      }
    },
  };
}

interface LineCollector {
  lines(): string[];
  waitFor(re: RegExp, timeoutMs: number, closed: Promise<unknown>, describe: () => string): Promise<string>;
}

/** Splits a stream into lines and lets callers wait for one matching a pattern. */
function lineCollector(stream: NodeJS.ReadableStream): LineCollector {
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  stream.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const waiter of [...waiters]) waiter();
  });
  stream.on('end', () => {
    if (partial !== '') lines.push(partial);
    partial = '';
    for (const waiter of [...waiters]) waiter();
  });
  return {
    lines: () => [...lines],
    waitFor: (re, timeoutMs, closed, describe) =>
      new Promise<string>((resolve, reject) => {
        const finish = (outcome: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          outcome();
        };
        const check = () => {
          const line = lines.find((candidate) => re.test(candidate));
          if (line !== undefined) finish(() => resolve(line));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no line matching ${re} after ${timeoutMs} ms\n${describe()}`))), timeoutMs);
        waiters.add(check);
        void closed.then(() => {
          check();
          if (waiters.has(check)) finish(() => reject(new Error(`the CLI exited before printing a line matching ${re}\n${describe()}`)));
        });
        check();
      }),
  };
}
