import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { DatabaseTarget } from '../../src/db/knex.js';
import { TEST_SECRETS_ENV } from './secrets-key.js';
import { compiledScript } from './server-entry.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const START_TIMEOUT_MS = 30_000;

/** A real `ROLE=api` process of the server (compiled `src/main.ts`) over the test's database. */
export interface ApiProcess {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Stops it by PID and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills it by PID with SIGKILL, as a crash would end it (no shutdown of its own), and waits for it to exit. */
  crash(): Promise<void>;
  /** The last 8,000 characters it wrote (stdout and stderr). */
  output(): string;
  /** Whether it has exited (by itself or stopped). */
  hasExited(): boolean;
}

/** A TCP port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Starts an API process (on `env.PORT` when given, else a free port; rate limits off unless `env`
 * sets `RATE_LIMIT_PER_SECOND`, the limit of failed authentications off unless it sets
 * `AUTH_FAILURES_PER_MINUTE`) and resolves once `GET /healthz` answers 200: it is migrated and listening.
 */
export async function startApiProcess(target: DatabaseTarget, env: Record<string, string> = {}): Promise<ApiProcess> {
  // A restart on the same address gives `PORT`; otherwise the OS picks one.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, compiledScript('src/main.ts'), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ROLE: 'api',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ADMIN_USER: 'admin',
      ADMIN_PASSWORD: 'test-admin-password',
      // Off unless a test turns them on, as in the in-process test server.
      RATE_LIMIT_PER_SECOND: '0',
      AUTH_FAILURES_PER_MINUTE: '0',
      ...TEST_SECRETS_ENV,
      ...(target.kind === 'postgres' ? { DATABASE_URL: target.url } : { DATA_DIR: path.dirname(target.filename) }),
      ...env,
    },
  });
  // Keep reading its output: a full pipe would block the process; the tail explains a failed start.
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
    await exited;
  };
  const crash = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
    await exited;
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API process exited with ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${url}/healthz`).then((res) => res.ok, () => false);
    if (ready) return { url, stop, crash, output: () => output, hasExited: () => child.exitCode !== null || child.signalCode !== null };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`API process not ready after ${START_TIMEOUT_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts `count` API processes over one database, one after the other: the first migrates it and
 * creates the account holding `env.BOOTSTRAP_API_KEY`, the others find them. Each is pushed onto
 * `started` as soon as it is up, so that the test's clean-up stops it even if a later one fails.
 */
export async function startApiProcessesInTurn(
  target: DatabaseTarget,
  env: Record<string, string> & { BOOTSTRAP_API_KEY: string },
  count: number,
  started: ApiProcess[],
): Promise<ApiProcess[]> {
  const processes: ApiProcess[] = [];
  for (let i = 0; i < count; i++) {
    const process = await startApiProcess(target, env);
    started.push(process);
    processes.push(process);
  }
  return processes;
}
