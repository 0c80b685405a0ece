import { expect } from 'chai';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { against, useCliServer, type CliServer } from './cli-server.js';

/** Makes a request that the account's log records, and answers its request id. */
async function aRequest(server: CliServer, path = '/v1/customers'): Promise<string> {
  const response = path === '/v1/customers' ? await server.api.post(path, { email: 'tail@example.com' }) : await server.api.get(path);
  return response.headers.get('Request-Id')!;
}

forEachDatabase('payments logs tail', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  const server = useCliServer(engine);
  let tail: CliProcess | undefined;

  afterEach(async () => {
    if (tail) expect(await tail.stop()).to.equal(0);
    tail = undefined;
  });

  it('prints each request made after it started, one line each, and none from before', async function () {
    this.timeout(30_000);
    const earlier = await aRequest(server);
    // Logged shortly after its answer: once it is, it is history by the time the tail starts.
    await eventually(async () => {
      const logged = await server.api.get('/v1/request_logs?limit=100');
      expect(logged.body.data.map((entry: { id: string }) => entry.id)).to.include(earlier);
    });
    tail = startCli(against(server, 'logs', 'tail'), server.cliEnv());
    await tail.waitForErrLine(/Following the request log of/);
    const created = await aRequest(server);
    const missing = await aRequest(server, '/v1/customers/cus_doesNotExist');
    const createdLine = await tail.waitForLine(new RegExp(created));
    expect(createdLine).to.match(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  POST  +/v1/customers  200  ${created}  \\d+\\.\\d ms$`));
    expect(await tail.waitForLine(new RegExp(missing))).to.match(new RegExp(`GET  +/v1/customers/cus_doesNotExist  404  ${missing} `));
    expect(tail.lines().findIndex((line) => line.includes(created))).to.be.lessThan(tail.lines().findIndex((line) => line.includes(missing)));
    expect(tail.lines().join('\n')).not.to.include(earlier);
  });

  it('prints one JSON object per line with --json', async function () {
    this.timeout(30_000);
    tail = startCli(against(server, 'logs', 'tail', '--json'), server.cliEnv());
    await tail.waitForErrLine(/Following the request log of/);
    const created = await aRequest(server);
    const entry = JSON.parse(await tail.waitForLine(new RegExp(created)));
    expect(entry).to.include({ id: created, object: 'request_log', method: 'POST', path: '/v1/customers', status: 200 });
    expect(entry.duration_ms).to.be.a('number');
  });

  it('says on stderr while the server restarts, keeps polling, and goes on once it is back', async function () {
    this.timeout(60_000);
    tail = startCli(against(server, 'logs', 'tail'), server.cliEnv());
    await tail.waitForErrLine(/Following the request log of/);
    // Down until the tail has said so (refused connections, or a 503 while the old process
    // drains): a new process can start within the tail's poll interval, and miss it.
    await server.restart(() =>
      tail!.waitForErrLine(/^Request log unavailable \(.+\); retrying in \d+ s…$/, 30_000),
    );
    await tail.waitForErrLine(/Request log reachable again/, 30_000);
    const created = await aRequest(server);
    await tail.waitForLine(new RegExp(created));
    expect(tail.lines().every((line) => !/unavailable|reachable/.test(line))).to.equal(true);
  });
});
