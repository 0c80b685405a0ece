import { expect } from 'chai';
import { createDatabase, forEachDatabase, type TestDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process.js';

const ADMIN = { user: 'admin', password: 'worker-health-admin' };
const basic = `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`;

forEachDatabase('a ROLE=worker process on its own port', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  let database: TestDatabase;
  let worker: WorkerProcess;
  before(async function () {
    this.timeout(60_000);
    database = await createDatabase(engine);
    worker = await startWorkerProcess(database.target, { ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password });
  });
  after(async () => {
    await worker?.stop();
    await database?.drop();
  });

  it('answers /healthz and /readyz without credentials', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${worker.url}${path}`);
      expect(response.status, path).to.equal(200);
      expect(await response.json(), path).to.deep.equal({ status: 'ok' });
    }
  });

  it('keeps /metrics to the admin credentials', async () => {
    const refused = await fetch(`${worker.url}/metrics`);
    expect(refused.status).to.equal(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('admin_credentials_invalid');
    const scraped = await fetch(`${worker.url}/metrics`, { headers: { Authorization: basic } });
    expect(scraped.status).to.equal(200);
    expect(await scraped.text()).to.include('webhook_deliveries');
  });

  it('serves nothing else: a 404 in the error envelope', async () => {
    const response = await fetch(`${worker.url}/v1/charges`);
    expect(response.status).to.equal(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('url_not_found');
  });
});
