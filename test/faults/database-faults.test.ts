/**
 * Real faults between the processes and Postgres, on every way of running them: a proxy in front
 * of Postgres cuts every connection in the middle of load and refuses new ones for a few seconds,
 * and `pg_terminate_backend` ends each kind of session (the pool's, the LISTEN connection's). The
 * machine's Postgres itself is never restarted: the proxy plays the restart.
 *
 * Each run checks that no process exited, that every request retried with its `Idempotency-Key`
 * made one charge, that no request answered a 500, that every 503 is the envelope's with
 * `Retry-After`, and that every committed event was delivered once the database was back; it
 * prints how long until requests succeed and deliveries resume again.
 */
import { expect } from 'chai';
import pg from 'pg';
import { startApiProcess, type ApiProcess } from '../helpers/api-process.js';
import { ApiClient } from '../helpers/api-client.js';
import { startCaptureReceiver } from '../helpers/capture-receiver.js';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../helpers/tcp-fault-proxy.js';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process.js';

const API_KEY = 'sk_test_databaseFaults00001';
const ADMIN = { ADMIN_USER: 'admin', ADMIN_PASSWORD: 'test-admin-password' };
/** How long the proxy refuses connections after cutting them (a restart's downtime). */
const REFUSED_MS = 3_000;
const LOAD_CLIENTS = 6;

/** The processes of one way of running the service, all over the proxy. */
interface Deployment {
  name: string;
  /**
   * Its LISTEN connections once every process has started: one per API process (the live event
   * feed) and one per worker (its wake-ups). A fault before then is a failed start, not this test's.
   */
  listeners: number;
  start(target: { kind: 'postgres'; url: string }, env: Record<string, string>): Promise<{ api: ApiProcess; worker?: WorkerProcess }>;
}

const DEPLOYMENTS: Deployment[] = [
  {
    name: 'ROLE=api beside ROLE=worker',
    listeners: 2,
    async start(target, env) {
      const api = await startApiProcess(target, { ...env, ROLE: 'api' });
      const worker = await startWorkerProcess(target, env);
      return { api, worker };
    },
  },
  { name: 'ROLE=all', listeners: 2, start: async (target, env) => ({ api: await startApiProcess(target, { ...env, ROLE: 'all' }) }) },
  {
    name: 'ROLE=all with WEB_CONCURRENCY=2',
    listeners: 3,
    start: async (target, env) => ({ api: await startApiProcess(target, { ...env, ROLE: 'all', WEB_CONCURRENCY: '2' }) }),
  },
];

/** What one run of load saw. */
interface LoadResult {
  /** Charge ids by idempotency key, once each key's request succeeded. */
  charges: Map<string, string>;
  statuses: Map<number, number>;
  /** 503 answers that lacked the envelope or `Retry-After`. */
  malformed: string[];
  /** When each request that succeeded answered (ms since the epoch). */
  succeededAt: number[];
}

/**
 * `LOAD_CLIENTS` clients creating charges until `stop()`, each retrying its request with the same
 * `Idempotency-Key` (after a connection error, a 503 or a 409) until it succeeds.
 */
function startLoad(client: ApiClient, run: string): { succeeded(): number; succeededSince(at: number): number; stop(): Promise<LoadResult> } {
  const result: LoadResult = { charges: new Map(), statuses: new Map(), malformed: [], succeededAt: [] };
  let stopping = false;
  const runClient = async (n: number) => {
    for (let i = 0; !stopping; i++) {
      const key = `fault-${run}-${n}-${i}`;
      let last = 'no answer';
      const deadline = Date.now() + 30_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`the request of ${key} never succeeded; its last answer: ${last}`);
        const response = await client
          .post('/v1/charges', { amount: 1000 + n, currency: 'usd', source: 'tok_visa' }, { idempotencyKey: key })
          .catch((error: unknown) => void (last = String(error)));
        if (response) last = `${response.status} ${JSON.stringify(response.body)}`;
        if (response) result.statuses.set(response.status, (result.statuses.get(response.status) ?? 0) + 1);
        if (response?.status === 200) {
          result.charges.set(key, response.body.id);
          result.succeededAt.push(Date.now());
          break;
        }
        if (response?.status === 503) {
          const error = response.body?.error;
          if (error?.type !== 'api_error' || error?.code !== 'service_unavailable' || !response.headers.get('retry-after')) {
            result.malformed.push(JSON.stringify(response.body));
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const clients = Promise.all(Array.from({ length: LOAD_CLIENTS }, (_, n) => runClient(n)));
  return {
    succeeded: () => result.succeededAt.length,
    succeededSince: (at) => result.succeededAt.filter((when) => when >= at).length,
    async stop() {
      stopping = true;
      await clients;
      return result;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One deployment's processes, its own database, and the proxy and receiver between them. */
interface Setup {
  database: TestDatabase;
  databaseName: string;
  proxy: TcpFaultProxy;
  receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
  processes: { api: ApiProcess; worker?: WorkerProcess };
  admin: pg.Client;
  client: ApiClient;
}

/**
 * Starts a deployment over its own database and proxy, and resolves once every process has started
 * (its LISTEN connections are open) and the worker delivers. On a failure, what it started is
 * stopped before it rejects.
 */
async function startDeployment(deployment: Deployment): Promise<Setup> {
  const parts: Partial<Setup> = {};
  try {
    parts.database = await createDatabase('postgres');
    const url = new URL((parts.database.target as { url: string }).url);
    parts.databaseName = url.pathname.slice(1);
    parts.admin = new pg.Client({ connectionString: url.toString() });
    await parts.admin.connect();
    parts.proxy = await startTcpFaultProxy(Number(url.port || 5432), url.hostname);
    parts.receiver = await startCaptureReceiver();
    url.port = String(parts.proxy.port);
    parts.processes = await deployment.start(
      { kind: 'postgres', url: url.toString() },
      {
        ...ADMIN,
        BOOTSTRAP_API_KEY: API_KEY,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Deliveries whose outcome could not be recorded are due again soon.
        WEBHOOK_LEASE_SECONDS: '3',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      },
    );
    const setup = parts as Setup;
    setup.client = new ApiClient(setup.processes.api.url, API_KEY);
    await eventually(async () => {
      const listening = await setup.admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'payments-api-listen'",
        [setup.databaseName],
      );
      expect(listening.rows[0].n, 'LISTEN connections').to.equal(deployment.listeners);
    }, 60_000);
    expect((await setup.client.post('/v1/webhook_endpoints', { url: setup.receiver.url, enabled_events: ['*'] })).status).to.equal(200);
    // The worker runs: a first charge's event is delivered.
    expect((await setup.client.post('/v1/charges', { amount: 500, currency: 'usd', source: 'tok_visa' })).status).to.equal(200);
    await setup.receiver.waitFor(1, 20_000);
    return setup;
  } catch (error) {
    await stopDeployment(parts);
    throw error;
  }
}

async function stopDeployment(setup: Partial<Setup>): Promise<void> {
  await setup.processes?.worker?.stop();
  await setup.processes?.api.stop();
  await setup.proxy?.close();
  await setup.receiver?.close();
  await setup.admin?.end();
  await setup.database?.drop();
}

forEachDatabase('database faults', (engine) => {
  // The faults are of a database server's connections; SQLite, a file, has none.
  if (engine === 'sqlite') return;

  for (const deployment of DEPLOYMENTS) {
    describe(deployment.name, function () {
      this.timeout(120_000);
      let setup: Setup | undefined;
      let databaseName: string;
      let proxy: TcpFaultProxy;
      let receiver: Awaited<ReturnType<typeof startCaptureReceiver>>;
      let processes: { api: ApiProcess; worker?: WorkerProcess };
      let admin: pg.Client;
      let client: ApiClient;
      /** Charges made by the runs before this one. */
      let chargesBefore = 0;
      let runs = 0;

      before(async function () {
        setup = await startDeployment(deployment);
        ({ databaseName, proxy, receiver, processes, admin, client } = setup);
      });

      after(async function () {
        if (setup) await stopDeployment(setup);
      });

      /** Runs load around `fault`, then checks what every fault must leave behind; returns the figures. */
      async function underLoad(fault: () => Promise<number>): Promise<{ requestsMs: number; deliveriesMs: number }> {
        const load = startLoad(client, String((runs += 1)));
        // The fault comes in the middle of load: once it has made as many charges as it has clients.
        await eventually(() => expect(load.succeeded(), 'requests that succeeded before the fault').to.be.at.least(LOAD_CLIENTS), 30_000);
        const backAt = await fault();
        // And load goes on after it, until as many more have succeeded.
        await eventually(() => expect(load.succeededSince(backAt), 'requests that succeeded after the fault').to.be.at.least(LOAD_CLIENTS), 30_000);
        const result = await load.stop();

        expect(result.statuses.get(500) ?? 0, 'requests that answered 500').to.equal(0);
        expect(result.malformed, '503s without the envelope or Retry-After').to.deep.equal([]);
        // Every key made exactly one charge, however many times its request was sent.
        const ids = [...result.charges.values()];
        expect(new Set(ids).size, 'one charge per idempotency key').to.equal(ids.length);
        const charges = await admin.query<{ id: string }>('SELECT id FROM charges WHERE id = ANY($1)', [ids]);
        expect(charges.rowCount, 'charges answered are committed').to.equal(ids.length);
        const total = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM charges');
        expect(total.rows[0].n, 'charges in the database (no duplicate of a retried key)').to.equal(result.charges.size + 1 + chargesBefore);
        chargesBefore += result.charges.size;

        // Every committed event is delivered once the database is back.
        const events = await admin.query<{ id: string }>('SELECT event_id AS id FROM webhook_deliveries');
        await eventually(() => {
          const received = new Set(receiver.received.map((request) => request.headers['webhook-id']));
          const missing = events.rows.filter((row) => !received.has(row.id));
          expect(missing, 'events not delivered').to.deep.equal([]);
        }, 30_000);

        for (const process of [processes.api, processes.worker]) {
          if (!process) continue;
          expect(process.hasExited(), `a process exited:\n${process.output()}`).to.equal(false);
          expect(process.output()).not.to.match(/Unhandled 'error' event|uncaught|died \(/i);
        }
        const firstRequest = Math.min(...result.succeededAt.filter((at) => at >= backAt));
        const firstDelivery = Math.min(...receiver.received.map((request) => request.receivedAt).filter((at) => at >= backAt));
        return { requestsMs: firstRequest - backAt, deliveriesMs: firstDelivery - backAt };
      }

      it('survives every connection cut in the middle of load and refused for a few seconds, and resumes by itself', async function () {
        const figures = await underLoad(async () => {
          proxy.cutAll();
          proxy.refuse();
          await sleep(1_500);
          // Not ready while its database is away, in the envelope, as any 503.
          const apiReady = await fetch(`${processes.api.url}/readyz`);
          expect(apiReady.status).to.equal(503);
          expect(((await apiReady.json()) as { error: { code: string } }).error.code).to.equal('service_unavailable');
          if (processes.worker) await checkWorkerHealthWhileDown(processes.worker);
          await sleep(REFUSED_MS - 1_500);
          proxy.allow();
          return Date.now();
        });
        if (processes.worker) await eventually(async () => expect((await fetch(`${processes.worker!.url}/readyz`)).status).to.equal(200), 10_000);
        console.log(`      ${deployment.name}, connections cut and refused for ${REFUSED_MS} ms: requests succeed again ${figures.requestsMs} ms and deliveries resume ${figures.deliveriesMs} ms after Postgres is reachable`);
      });

      it('survives pg_terminate_backend of its pooled sessions and of its LISTEN connections', async function () {
        const figures = await underLoad(async () => {
          const pool = await terminate(admin, databaseName, 'payments-api');
          await sleep(500);
          const listen = await terminate(admin, databaseName, 'payments-api-listen');
          expect(pool, 'pooled sessions terminated').to.be.greaterThan(0);
          expect(listen, 'LISTEN sessions terminated').to.be.greaterThan(0);
          return Date.now();
        });
        console.log(`      ${deployment.name}, sessions terminated: requests succeed again ${figures.requestsMs} ms and deliveries resume ${figures.deliveriesMs} ms after`);
      });
    });
  }
});

/** A lone worker with its database away: up (`/healthz`), not ready (`/readyz`), `/metrics` still guarded. */
async function checkWorkerHealthWhileDown(worker: WorkerProcess): Promise<void> {
  expect((await fetch(`${worker.url}/healthz`)).status).to.equal(200);
  const ready = await fetch(`${worker.url}/readyz`);
  expect(ready.status).to.equal(503);
  expect(ready.headers.get('retry-after')).to.equal('1');
  expect(((await ready.json()) as { error: { code: string } }).error.code).to.equal('service_unavailable');
  expect((await fetch(`${worker.url}/metrics`)).status).to.equal(401);
}

/** Ends the sessions of `applicationName` on this test's own database; returns how many. */
async function terminate(admin: pg.Client, databaseName: string, applicationName: string): Promise<number> {
  const result = await admin.query<{ ended: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
      WHERE datname = $1 AND application_name = $2 AND pid <> pg_backend_pid()`,
    [databaseName, applicationName],
  );
  return result.rows.filter((row) => row.ended).length;
}
