import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import type { DatabaseTarget } from '../../src/db/knex.js';
import { ApiClient } from '../helpers/api-client.js';
import { freePort } from '../helpers/api-process.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { databaseEnv, runMain } from '../helpers/run-main.js';
import { compiledScript } from '../helpers/server-entry.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const API_KEY = 'sk_test_webConcurrency0001';
/** Starting three processes of tsx on a busy machine takes a while; a start that hangs still fails. */
const START_TIMEOUT_MS = 120_000;
/** How often a check that runs `ps` or `ss` is retried: not so often that it slows the starts it waits on. */
const PROCESS_POLL_MS = 200;

/** `src/main.ts` as `npm start` runs it, with the processes it forks. */
interface Started {
  pid: number;
  url: string;
  output(): string;
  /** The JSON log lines whose message starts with `prefix`. */
  logLines(prefix: string): Array<Record<string, unknown>>;
  /** Resolves with how it ended (bounded by the caller's test timeout). */
  exited: Promise<{ code: number | null; stderr: string }>;
  /** SIGTERM by PID, and waits for the exit. */
  stop(): Promise<{ code: number | null; stderr: string }>;
}

/** Starts main.ts and resolves once its `Ready at` line is out (or a `ROLE=worker`'s `webhook worker started`). */
async function startMain(target: DatabaseTarget, env: Record<string, string>, readyLine = 'Ready at'): Promise<Started> {
  const port = await freePort();
  const { DATABASE_URL: _inherited, ...base } = process.env;
  const child = spawn(process.execPath, compiledScript('src/main.ts'), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...base,
      ...{ HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', NODE_ENV: 'test', RATE_LIMIT_PER_SECOND: '0' },
      ...{ ADMIN_USER: 'admin', ADMIN_PASSWORD: 'test-admin-password', BOOTSTRAP_API_KEY: API_KEY },
      ...databaseEnv(target),
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stderr })),
  );
  const logLines = (prefix: string) =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => String(line.msg).startsWith(prefix));
  const started: Started = {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    output: () => stdout + stderr,
    logLines,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      return exited;
    },
  };
  try {
    await eventually(() => {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
      expect(logLines(readyLine), 'not ready yet').to.have.length.above(0);
    }, START_TIMEOUT_MS);
  } catch (error) {
    await started.stop();
    throw new Error(`${String(error)}:\n${started.output()}`);
  }
  return started;
}

/** The PIDs whose parent is `pid`, as the OS sees them (not as the process says). */
async function childrenOf(pid: number): Promise<number[]> {
  // ps exits 1 when it lists nothing.
  const { stdout } = await run('ps', ['--ppid', String(pid), '-o', 'pid=,args=']).catch((error: { stdout: string }) => error);
  // Only the server's own processes: tsx's loader runs esbuild as a child of its own.
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([child, command]) => child && command && !/esbuild/.test(command))
    .map(([child]) => Number(child));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The PID of the process that answers a new connection to `url`: the owner of the server's end
 * of the socket, asked of the kernel (`ss -p`) while the connection is kept open.
 */
async function answeringPid(url: string, candidates: number[]): Promise<number> {
  const port = Number(new URL(url).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const clientPort = await new Promise<number>((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path: '/healthz', agent }, (response) => {
        expect(response.statusCode).to.equal(200);
        response.resume().once('end', () => resolve(request.socket!.localPort!));
      });
      request.once('error', reject);
    });
    const { stdout } = await run('ss', ['-Htnp', 'state', 'established', `( sport = :${port} and dport = :${clientPort} )`]);
    const owners = [...stdout.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1])).filter((pid) => candidates.includes(pid));
    expect(owners, stdout).to.have.length(1);
    return owners[0];
  } finally {
    agent.destroy();
  }
}

/** The PIDs the primary logged forking, by role. */
function forked(started: Started, role: 'api' | 'worker'): number[] {
  return started.logLines(`${role} process forked`).map((line) => Number(line.pid));
}

async function expectAllGone(pids: number[]): Promise<void> {
  await eventually(() => expect(pids.filter(isRunning), 'still running').to.deep.equal([]), 10_000);
}

forEachDatabase('WEB_CONCURRENCY', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  let database: TestDatabase;
  let running: Started | undefined;
  const children: number[] = [];

  beforeEach(async () => {
    database = await createDatabase(engine);
  });
  afterEach(async function () {
    this.timeout(60_000);
    await running?.stop();
    running = undefined;
    // A test that failed half-way leaves no process behind.
    for (const pid of children.splice(0).filter(isRunning)) process.kill(pid, 'SIGKILL');
    await database.drop();
  });

  if (engine === 'postgres') {
    it('runs 2 API processes on one port and one worker, delivers each webhook once, and SIGTERM ends them all', async function () {
      this.timeout(300_000);
      const receiver = await startCaptureReceiver();
      try {
        running = await startMain(database.target, { WEB_CONCURRENCY: '2', ROLE: 'all', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
        const [api, worker] = [forked(running, 'api'), forked(running, 'worker')];
        children.push(...api, ...worker);
        expect(api).to.have.length(2);
        expect(worker).to.have.length(1);
        expect((await childrenOf(running.pid)).sort()).to.deep.equal([...api, ...worker].sort());
        expect(running.logLines('Ready at')).to.have.length(1);
        expect(running.logLines('Ready at')[0]).to.include({ url: running.url, api_processes: 2 });
        expect(running.logLines('Ready at')[0].msg).to.include(', 2 API processes.');
        // The home page, whichever child answers, says so too.
        expect(await (await fetch(`${running.url}/`)).text()).to.include('<dd data-fact="api-processes">2</dd>');

        // New connections go to the children in turn: both answer on the one port.
        const answering = new Set<number>();
        for (let i = 0; i < 20 && answering.size < 2; i++) answering.add(await answeringPid(running.url, [...api, ...worker]));
        expect([...answering].sort()).to.deep.equal([...api].sort());

        const client = new ApiClient(running.url, API_KEY);
        const endpoint = await client.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['charge.succeeded'] });
        expect(endpoint.status).to.equal(200);
        for (let i = 0; i < 10; i++) {
          expect((await client.post('/v1/charges', { amount: 100 + i, currency: 'usd', source: 'tok_visa' })).status).to.equal(200);
        }
        await receiver.waitFor(10, 60_000);
        // Every delivery is done after one attempt, so none is sent again; one process ran the worker.
        await eventually(async () => {
          const deliveries = (await client.get('/v1/webhook_deliveries?limit=100')).body.data as Array<Record<string, unknown>>;
          expect(deliveries.map((d) => [d.status, d.attempt_count])).to.deep.equal(Array(10).fill(['succeeded', 1]));
        }, 30_000);
        const eventIds = receiver.received.map((request) => request.headers['webhook-id']);
        expect(new Set(eventIds).size).to.equal(10);
        expect(receiver.received).to.have.length(10);
        expect(running.logLines('webhook worker started')).to.have.length(1);

        const { code } = await running.stop();
        expect(code).to.equal(0);
        await expectAllGone([running.pid, ...api, ...worker]);
      } finally {
        await receiver.close();
      }
    });

    it('replaces a child that dies, and exits 1 saying why once more than WEB_CONCURRENCY died in a minute', async function () {
      this.timeout(300_000);
      running = await startMain(database.target, { WEB_CONCURRENCY: '2', ROLE: 'api' });
      const original = forked(running, 'api');
      children.push(...original);
      expect(forked(running, 'worker'), 'ROLE=api runs no worker').to.deep.equal([]);

      const primary = running;
      let exited = false;
      void primary.exited.then(() => (exited = true));
      /** Kills `pid`; resolves with the child forked in its place, or undefined when the primary gave up instead. */
      const kill = async (pid: number): Promise<number | undefined> => {
        process.kill(pid, 'SIGKILL');
        let replacement: number | undefined;
        await eventually(
          async () => {
            replacement = (await childrenOf(primary.pid)).find((child) => !children.includes(child));
            expect(replacement !== undefined || exited, 'neither replaced nor given up').to.equal(true);
          },
          30_000,
          PROCESS_POLL_MS,
        );
        if (replacement !== undefined) children.push(replacement);
        return exited ? undefined : replacement;
      };
      const first = (await kill(original[0]))!;
      expect(first, 'the first death is replaced').to.be.a('number');
      // The replacement serves beside the survivor.
      await eventually(async () => expect(await answeringPid(primary.url, children)).to.equal(first), START_TIMEOUT_MS, PROCESS_POLL_MS);

      // Deaths in quick succession: the budget of 2 a minute runs out at the second or third of these
      // (the third, if the first replacement took over a minute to serve on a slow machine).
      let last = original[1];
      for (let deaths = 0; deaths < 3 && !exited; deaths++) last = (await kill(last)) ?? last;
      const { code, stderr } = await primary.exited;
      expect(code).to.equal(1);
      expect(stderr.split('\n').filter(Boolean)).to.deep.equal([
        `payments-api: processes keep dying: 2 replaced in the last minute (at most WEB_CONCURRENCY=2), and now the api process ${last} (killed by SIGKILL)`,
      ]);
      await expectAllGone([primary.pid, ...children]);
    });

    it('fails a start whose first API process cannot listen with that process’s one line, and leaves nothing running', async function () {
      this.timeout(180_000);
      const holder = net.createServer();
      await new Promise<void>((resolve, reject) => holder.once('error', reject).listen(0, '127.0.0.1', resolve));
      const { port } = holder.address() as net.AddressInfo;
      try {
        const refused = await runMain({ ...databaseEnv(database.target), WEB_CONCURRENCY: '2', PORT: String(port) }, START_TIMEOUT_MS);
        expect(refused.code, refused.stdout + refused.stderr).to.equal(1);
        expect(refused.stderr).to.equal(`payments-api: cannot listen on 127.0.0.1:${port}: the port is already in use\n`);
        const forkedPids = [...refused.stdout.matchAll(/"pid":(\d+)/g)].map((match) => Number(match[1]));
        expect(forkedPids, 'the second process is forked only once the first listens').to.have.length(1);
        await expectAllGone(forkedPids);
      } finally {
        await new Promise<void>((resolve) => holder.close(() => resolve()));
      }
    });
  }

  if (engine === 'sqlite') {
    it('serves from one process, saying why, since SQLite has one writer', async function () {
      this.timeout(180_000);
      running = await startMain(database.target, { WEB_CONCURRENCY: '2', ROLE: 'all' });
      expect(await childrenOf(running.pid)).to.deep.equal([]);
      const [warning] = running.logLines('WEB_CONCURRENCY=2 is not applied on SQLite');
      expect(warning).to.include({ level: 40, web_concurrency: 2 });
      expect(warning.msg).to.include('use Postgres (DATABASE_URL) to run several');
      expect(running.logLines('Ready at')[0]).to.include({ api_processes: 1 });
      expect(await (await fetch(`${running.url}/`)).text()).to.include('<dd data-fact="api-processes">1</dd>');
      expect((await new ApiClient(running.url, API_KEY).get('/v1/charges')).status).to.equal(200);
    });

    it('accepts auto (one per CPU), which a ROLE=worker process does not apply, saying so', async function () {
      this.timeout(180_000);
      expect(loadConfig({ WEB_CONCURRENCY: 'auto' }).webConcurrency).to.equal(os.availableParallelism());
      running = await startMain(database.target, { WEB_CONCURRENCY: 'auto', ROLE: 'worker' }, 'webhook worker started');
      expect(await childrenOf(running.pid)).to.deep.equal([]);
      const said = running.logLines('WEB_CONCURRENCY=');
      if (os.availableParallelism() > 1) expect(said[0].msg).to.include('does not apply to ROLE=worker');
      else expect(said).to.deep.equal([]);
    });

    it('refuses 0 and x with one line', async function () {
      this.timeout(120_000);
      // Two refused starts, each on its own, run at once.
      const values = ['0', 'x'];
      const runs = await Promise.all(values.map((value) => runMain({ ...databaseEnv(database.target), WEB_CONCURRENCY: value })));
      for (const [i, value] of values.entries()) {
        const refused = runs[i];
        expect(refused.code, refused.stderr).to.equal(1);
        expect(refused.stderr).to.equal(
          `payments-api: invalid configuration: WEB_CONCURRENCY must be a whole number of at least 1, or auto, got "${value}"\n`,
        );
        expect(refused.stdout).not.to.include('listening');
      }
    });
  }
});
