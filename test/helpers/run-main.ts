import { spawn } from 'node:child_process';
import path from 'node:path';
import type { DatabaseTarget } from '../../src/db/knex.js';
import { TEST_SECRETS_ENV } from './secrets-key.js';
import { compiledScript } from './server-entry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** How a run of `src/main.ts` ended. */
export interface MainRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** It was still running at the deadline and was killed. */
  timedOut: boolean;
}

/** The environment of a database target, as `npm start` reads it, with the key its secrets are sealed under. */
export function databaseEnv(target: DatabaseTarget): Record<string, string> {
  const where: Record<string, string> = target.kind === 'postgres' ? { DATABASE_URL: target.url } : { DATA_DIR: path.dirname(target.filename) };
  return { ...where, ...TEST_SECRETS_ENV };
}

/**
 * Runs `src/main.ts` as `npm start` does, compiled (through tsx when `root` is another project,
 * which has no build), with `env` over a neutral base (no `DATABASE_URL` from the caller's environment) and waits
 * for it to exit; a process still running after `deadlineMs` is killed and reported as `timedOut`,
 * so a start that hangs fails the test instead of hanging it. `root` is the project to run (a
 * copy, for a test that changes the spec).
 */
export function runMain(env: Record<string, string>, deadlineMs = 60_000, root = ROOT): Promise<MainRun> {
  const { DATABASE_URL: _inherited, ...base } = process.env;
  const child = spawn(process.execPath, root === ROOT ? compiledScript('src/main.ts') : ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...base,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      ADMIN_USER: 'admin',
      ADMIN_PASSWORD: 'test-admin-password',
      RATE_LIMIT_PER_SECOND: '0',
      ...TEST_SECRETS_ENV,
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, deadlineMs);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
