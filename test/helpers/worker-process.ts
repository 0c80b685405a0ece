import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { DatabaseTarget } from '../../src/db/knex.js';
import { freePort } from './api-process.js';
import { TEST_SECRETS_ENV } from './secrets-key.js';
import { compiledScript } from './server-entry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A real `ROLE=worker` process of the server over the test's database. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Its listener (`/healthz`, `/readyz`, `/metrics`): `http://127.0.0.1:<PORT>`, or `METRICS_PORT` when `env` sets it. */
  url: string;
  /** The last 8,000 characters it wrote (stdout and stderr). */
  output(): string;
  /** Whether it has exited (by itself or stopped). */
  hasExited(): boolean;
  /** Stops it by PID (SIGKILL simulates a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a worker, listening on a free port (or `env.PORT`), and resolves once its loop has started. */
export async function startWorkerProcess(target: DatabaseTarget, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, compiledScript('src/main.ts'), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ROLE: 'worker',
      HOST: '127.0.0.1',
      PORT: port,
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      ADMIN_USER: 'admin',
      ADMIN_PASSWORD: 'unused-in-workers',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ...TEST_SECRETS_ENV,
      ...(target.kind === 'postgres' ? { DATABASE_URL: target.url } : { DATA_DIR: path.dirname(target.filename) }),
      ...env,
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Keep reading its output: a full pipe would block the process; the tail explains a failure.
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      if (!chunk.toString().includes('webhook worker started')) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve();
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  return {
    child,
    url: `http://127.0.0.1:${env.METRICS_PORT ?? port}`,
    output: () => output,
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      await exited;
    },
  };
}
