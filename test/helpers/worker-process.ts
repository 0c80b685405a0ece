import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { DatabaseTarget } from '../../src/db/knex.js';
import { TEST_SECRETS_ENV } from './secrets-key.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A real `ROLE=worker` process of the server over the test's database. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Stops it by PID (SIGKILL simulates a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startWorkerProcess(target: DatabaseTarget, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ROLE: 'worker',
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
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('webhook worker started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  return {
    child,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      await exited;
    },
  };
}
