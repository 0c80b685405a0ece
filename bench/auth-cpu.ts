/**
 * `npx tsx bench/auth-cpu.ts`: the API process's CPU per request (from /proc/<pid>/stat, Linux) for
 * `GET /v1/charges/{id}` with the secret API key and with a message signature (RFC 9421, fresh per
 * request), AUTH_CPU_REQUESTS (8000) of each, 10 connections, three rounds after a warm-up; prints
 * each round and the medians. On SQLite, or on Postgres in a database created and dropped for it
 * when BENCH_DATABASE_URL is set. CPU per request holds on a busy machine, where the throughput
 * ratios of `BENCH_ONLY=auth` do not.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { authScenarios } from './auth-methods.js';
import { measure } from './load.js';
import { startServer, stopServer } from './processes.js';
import { createPostgresDatabase } from './store.js';

const ADMIN = { user: 'bench', password: 'bench-admin-password' };
const REQUESTS = Number(process.env.AUTH_CPU_REQUESTS ?? 8000);
const ROUNDS = 3;

/** CPU time of a process so far, in µs (user + system, at the kernel's 100 ticks a second). */
function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-auth-cpu-'));
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  BOOTSTRAP_API_KEY: 'sk_test_bench0000000000',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
  ADMIN_USER: ADMIN.user,
  ADMIN_PASSWORD: ADMIN.password,
  DATABASE_URL: '',
  SECRETS_KEY: randomBytes(32).toString('base64'),
  RATE_LIMIT_PER_SECOND: '0',
};
let drop: (() => Promise<void>) | undefined;
if (process.env.BENCH_DATABASE_URL) {
  const created = await createPostgresDatabase(process.env.BENCH_DATABASE_URL);
  env.DATABASE_URL = created.url;
  drop = created.drop;
}
const server = await startServer('server', ['--import', 'tsx', 'src/main.ts'], env, '/healthz');
try {
  const [key, , , signed] = await authScenarios(server, ADMIN);
  const pid = server.child.pid!;
  const perRequest: Record<string, number[]> = {};
  for (const scenario of [key, signed])
    await measure(server.url, scenario, { connections: 10, seconds: 2, warmupSeconds: 1 });
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of [key, signed]) {
      const request: autocannon.Request = {
        method: 'GET',
        path: scenario.path,
        headers: scenario.headers ?? {},
      };
      const sign = scenario.signHeaders;
      if (sign)
        request.setupRequest = (req) => ({ ...req, headers: { ...req.headers, ...sign() } });
      const before = cpuMicros(pid);
      const result = await autocannon({
        url: server.url,
        connections: 10,
        amount: REQUESTS,
        requests: [request],
      });
      const micros = (cpuMicros(pid) - before) / REQUESTS;
      (perRequest[scenario.name] ??= []).push(micros);
      console.log(
        `round ${round}, ${scenario.name}: ${micros.toFixed(0)} µs/request (${result.non2xx + result.errors} not 2xx)`,
      );
    }
  }
  for (const [name, values] of Object.entries(perRequest)) {
    const median = [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.log(`median, ${name}: ${median.toFixed(0)} µs/request`);
  }
} finally {
  await stopServer(server);
  await drop?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
