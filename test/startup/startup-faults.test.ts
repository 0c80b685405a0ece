import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import YAML from 'yaml';
import { loadConfig } from '../../src/config.js';
import { assertEveryOperationBound, handlers } from '../../src/resources/handlers.js';
import { routeOperations } from '../../src/operations/routes.js';
import { describeStartupFailure, startupStage } from '../../src/startup-failure.js';
import { ApiClient } from '../helpers/api-client.js';
import { startApiProcess } from '../helpers/api-process.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { createDatabase, forEachDatabase, POSTGRES_ADMIN_URL } from '../helpers/databases.js';
import { FAST_RUN, requireProcesses } from '../helpers/fast-run.js';
import { databaseEnv, runMain, type MainRun } from '../helpers/run-main.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

const API_KEY = 'sk_test_startupFaults0001';

/**
 * A refused start: it exited (no hang) with status 1, wrote one line on stderr saying why, no
 * stack, and neither served nor started the webhook worker.
 */
function expectRefusedStart(run: MainRun, line: RegExp): void {
  expect(run.timedOut, `still running at the deadline:\n${run.stdout}${run.stderr}`).to.equal(false);
  expect(run.code, run.stderr).to.equal(1);
  const lines = run.stderr.split('\n').filter(Boolean);
  expect(lines, run.stderr).to.have.length(1);
  expect(lines[0]).to.match(line);
  expect(run.stderr).not.to.match(/^\s+at /m);
  // Nor anywhere else: a driver's or Knex's own report of the failure (Knex's "Acquire connection error" and its stack).
  expect(run.stdout, run.stdout).not.to.match(/^\s+at /m);
  expect(run.stdout, run.stdout).not.to.include('Acquire connection error');
  expect(run.stdout).not.to.include('listening');
  expect(run.stdout).not.to.include('webhook worker started');
}

/**
 * A copy of the project (sources and contracts; `node_modules` linked) whose spec has one more
 * operation, `POST /v1/widgets`, than the handler map serves: what a designer has after editing
 * the spec and before writing the handler.
 */
function projectWithExtraOperation(operationId: string): string {
  const root = path.resolve(import.meta.dirname, '../..');
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'missing-handler-'));
  for (const entry of ['src', 'generated', 'graphql', 'openapi', 'package.json', 'tsconfig.json']) {
    fs.cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
  const specFile = path.join(copy, 'openapi/openapi.yaml');
  const spec = YAML.parse(fs.readFileSync(specFile, 'utf8')) as { paths: Record<string, unknown> };
  spec.paths['/v1/widgets'] = {
    post: { operationId, security: [{ apiKey: [] }], responses: { '200': { description: 'The widget.' } } },
  };
  fs.writeFileSync(specFile, YAML.stringify(spec));
  return copy;
}

/** A port on 127.0.0.1 held by another listener for the test's duration. */
async function holdPort(): Promise<{ port: number; release(): Promise<void> }> {
  const holder = net.createServer();
  await new Promise<void>((resolve, reject) => holder.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    port: (holder.address() as net.AddressInfo).port,
    release: () => new Promise<void>((resolve) => holder.close(() => resolve())),
  };
}

/** Runs the tasks given to it `width` at a time, each once a slot is free, in the order given. */
function inTurns(width: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= width) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

describe('start-up faults: one line on stderr, exit 1, nothing left running', function () {
  this.timeout(180_000);
  let dataDir: string;
  /**
   * The refused starts of these tests, each a process of its own over its own directory, all
   * started together before the first test (they share nothing); each test checks its own.
   */
  let runs: Record<'port' | 'schedule' | 'address' | 'unreachable' | 'underFile' | 'proc', Promise<MainRun>>;
  const dirs: Record<'malformed' | 'address' | 'unreachable' | 'underFile', string> = { malformed: '', address: '', unreachable: '', underFile: '' };
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'startup-faults-'));
    for (const name of Object.keys(dirs) as (keyof typeof dirs)[]) dirs[name] = fs.mkdtempSync(path.join(dataDir, `${name}-`));
    const file = path.join(dirs.underFile, 'a-file');
    fs.writeFileSync(file, '');
    // The fast run starts none; each test that reads a run skips there (requireProcesses).
    if (FAST_RUN) return;
    // As many at a time as there are CPUs: more would only slow each (its deadline runs from its start).
    const run = inTurns(os.availableParallelism());
    runs = {
      port: run(() => runMain({ DATA_DIR: dirs.malformed, PORT: 'abc' })),
      schedule: run(() => runMain({ DATA_DIR: dirs.malformed, WEBHOOK_RETRY_SCHEDULE: 'garbage' })),
      address: run(() => runMain({ DATA_DIR: dirs.address, HOST: '203.0.113.1', PORT: '4242' })),
      unreachable: run(() => runMain({ DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/x', DATA_DIR: dirs.unreachable })),
      underFile: run(() => runMain({ DATA_DIR: path.join(file, 'data') })),
      proc: run(() => runMain({ DATA_DIR: '/proc/payments-api-data' })),
    };
  });
  after(async () => {
    // Every run has ended (each is killed at its deadline) before its directory goes.
    await Promise.all(Object.values(runs ?? {}));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses malformed settings, naming the setting, before opening anything', async function () {
    requireProcesses(this);
    expectRefusedStart(await runs.port, /^payments-api: invalid configuration: PORT must be a whole number, got "abc"$/);
    expectRefusedStart(
      await runs.schedule,
      /^payments-api: invalid configuration: WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, got "garbage"$/,
    );
    expect(fs.readdirSync(dirs.malformed)).to.deep.equal([]);
  });

  it('words every malformed setting as one line (the same stage as main, without a process each)', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: '70000' }, 'PORT must be a port number (0 to 65535), got "70000"'],
      [{ PORT: '-1' }, 'PORT must be a whole number, got "-1"'],
      [{ ROLE: 'x' }, 'ROLE must be all, api or worker, got "x"'],
      [{ METRICS_PORT: 'nine' }, 'METRICS_PORT must be a whole number, got "nine"'],
      [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS must be true or false, got "yes"'],
      [{ METRICS_PUBLIC: '1' }, 'METRICS_PUBLIC must be true or false, got "1"'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
      [{ LOG_FORMAT: 'text' }, 'LOG_FORMAT must be json or pretty, got "text"'],
      [{ SMTP_URL: 'mail.example.com' }, 'SMTP_URL must be an smtp:// or smtps:// URL'],
      [{ PUBLIC_URL: 'pay.example.com' }, 'PUBLIC_URL must be an http:// or https:// URL'],
      [{ PUBLIC_URL: `https://${'p'.repeat(93)}.com` }, "PUBLIC_URL's origin must be at most 100 characters"],
      [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)'],
      [{ REQUEST_LOG_RETENTION_HOURS: '0' }, 'REQUEST_LOG_RETENTION_HOURS must be at least 1'],
      [{ WEB_CONCURRENCY: '0' }, 'WEB_CONCURRENCY must be a whole number of at least 1, or auto, got "0"'],
      [{ WEB_CONCURRENCY: 'x' }, 'WEB_CONCURRENCY must be a whole number of at least 1, or auto, got "x"'],
    ];
    for (const [env, reason] of cases) {
      const failure = await startupStage('invalid configuration', () => loadConfig(env)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(describeStartupFailure(failure), JSON.stringify(env)).to.equal(`invalid configuration: ${reason}`);
    }
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'TRUE', METRICS_PUBLIC: 'false', PORT: '0' });
    expect(config).to.include({ port: 0, metricsPublic: false });
    expect(config.settings.webhookAllowPrivateNetworks).to.equal(true);
    // The absolute URLs (pages, receipts, e-mail links) are made from the origin alone.
    expect(loadConfig({ PUBLIC_URL: 'https://pay.example.com/shop/' }).publicUrl).to.equal('https://pay.example.com');
  });

  it('refuses an address this machine does not have (EADDRNOTAVAIL)', async function () {
    requireProcesses(this);
    const run = await runs.address;
    expectRefusedStart(run, /^payments-api: cannot listen on 203\.0\.113\.1:4242: the address is not available on this machine$/);
    expect(fs.existsSync(path.join(dirs.address, 'payments.sqlite-wal')), 'the database was not closed').to.equal(false);
  });

  it('refuses an unreachable Postgres without showing its password', async function () {
    requireProcesses(this);
    const run = await runs.unreachable;
    expectRefusedStart(run, /^payments-api: cannot open the database \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/x\): connection refused$/);
    expect(run.stderr + run.stdout).not.to.include('s3cret');
  });

  it('refuses a Postgres database that does not exist, and a role that does not exist', async function () {
    requireProcesses(this);
    const probe = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
    const reachable = await probe.connect().then(
      () => true,
      () => false,
    );
    await probe.end().catch(() => undefined);
    if (!reachable) this.skip();
    const missingDatabase = new URL(POSTGRES_ADMIN_URL);
    missingDatabase.pathname = '/payments_no_such_database';
    const [database, role] = await Promise.all([
      runMain({ DATABASE_URL: missingDatabase.toString(), DATA_DIR: dataDir }),
      runMain({ DATABASE_URL: Object.assign(new URL(POSTGRES_ADMIN_URL), { username: 'payments_no_such_role' }).toString(), DATA_DIR: dataDir }),
    ]);
    expectRefusedStart(database, /^payments-api: cannot open the database \(.*\): database "payments_no_such_database" does not exist$/);
    expectRefusedStart(role, /^payments-api: cannot open the database \(postgres:\/\/payments_no_such_role@.*\): role "payments_no_such_role" does not exist$/);
  });

  it('refuses a DATA_DIR it cannot create: under a regular file, or where the kernel refuses one', async function () {
    requireProcesses(this);
    expectRefusedStart(
      await runs.underFile,
      /^payments-api: cannot open the database \(SQLite .*\): a part of the path is not a directory \(mkdir .*a-file\/data\)$/,
    );
    if (process.platform === 'linux') {
      expectRefusedStart(await runs.proc, /^payments-api: cannot open the database \(SQLite \/proc\/payments-api-data\/payments\.sqlite\): /);
    }
  });
});

forEachDatabase('a second start on a taken port', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  it('exits 1 saying the port is in use, without delivering webhooks, for the API and for a worker with METRICS_PORT', async function () {
    this.timeout(180_000);
    const database = await createDatabase(engine);
    const receiver = await startCaptureReceiver();
    const held = await holdPort();
    try {
      // A delivery waits in the outbox: written by an API process, which runs no worker.
      const api = await startApiProcess(database.target, { BOOTSTRAP_API_KEY: API_KEY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
      try {
        const client = new ApiClient(api.url, API_KEY);
        expect((await client.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['charge.succeeded'] })).status).to.equal(200);
        expect((await client.post('/v1/charges', { amount: 500, currency: 'usd', source: 'tok_visa' })).status).to.equal(200);
      } finally {
        await api.stop();
      }

      const env = { ...databaseEnv(database.target), BOOTSTRAP_API_KEY: API_KEY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
      // Two refused starts at once: each fails on the held port whatever the other does.
      const [second, worker] = await Promise.all([
        runMain({ ...env, ROLE: 'all', PORT: String(held.port) }),
        runMain({ ...env, ROLE: 'worker', METRICS_PORT: String(held.port) }),
      ]);
      expectRefusedStart(second, new RegExp(`^payments-api: cannot listen on 127\\.0\\.0\\.1:${held.port}: the port is already in use$`));
      expectRefusedStart(
        worker,
        new RegExp(`^payments-api: cannot listen on 127\\.0\\.0\\.1:${held.port} \\(METRICS_PORT\\): the port is already in use$`),
      );
      expect(receiver.received, 'a refused start delivered a webhook').to.have.length(0);
      if (database.target.kind === 'sqlite') {
        expect(fs.existsSync(`${database.target.filename}-wal`), 'the SQLite database was left open').to.equal(false);
      }

      // The delivery was there to be sent: a worker that does start sends it.
      const running = await startWorkerProcess(database.target);
      try {
        await receiver.waitFor(1, 30_000);
      } finally {
        await running.stop();
      }
    } finally {
      await held.release();
      await receiver.close();
      await database.drop();
    }
  });
});

describe('every operation of the spec has a handler (the start-up check)', () => {
  it('passes for the spec and the handler map as they are', () => {
    expect(() => assertEveryOperationBound(routeOperations())).not.to.throw();
  });

  it('names an operation of the spec that has no handler', () => {
    const routes = [...routeOperations(), { operationId: 'frobnicateWidget', method: 'post', specPath: '/v1/widgets' }];
    expect(() => assertEveryOperationBound(routes)).to.throw(
      'the spec has operations without a handler in src/resources/handlers.ts: frobnicateWidget',
    );
  });

  it('names a handler missing from the map, and main prints it as one line', async () => {
    const { retrieveRefund: _missing, listRefunds: _alsoMissing, ...incomplete } = handlers;
    const failure = await startupStage('cannot serve the spec', () => assertEveryOperationBound(routeOperations(), incomplete)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(describeStartupFailure(failure)).to.equal(
      'cannot serve the spec: the spec has operations without a handler in src/resources/handlers.ts: listRefunds, retrieveRefund',
    );
  });

  it('refuses `npm start` of a spec with an operation no handler serves, naming it in one line', async function () {
    requireProcesses(this);
    this.timeout(120_000);
    const copy = projectWithExtraOperation('frobnicateWidget');
    try {
      const run = await runMain({ DATA_DIR: path.join(copy, 'data') }, 60_000, copy);
      expectRefusedStart(
        run,
        /^payments-api: cannot serve the spec: the spec has operations without a handler in src\/resources\/handlers\.ts: frobnicateWidget$/,
      );
      expect(fs.existsSync(path.join(copy, 'data')), 'no database was created').to.equal(false);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('reports an operation without an operationId by method and path', () => {
    expect(() => assertEveryOperationBound([{ method: 'get', specPath: '/v1/things' }])).to.throw('GET /v1/things (no operationId)');
  });
});
