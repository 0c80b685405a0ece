import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startApiProcess, type ApiProcess } from '../helpers/api-process.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';

/** The JSON log lines a process wrote whose message starts with `prefix`. */
function logLines(output: string, prefix: string): Array<Record<string, string>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, string>)
    .filter((line) => line.msg?.startsWith(prefix));
}

/**
 * What a developer sees on `npm start`: on every start, one line with the URL, the database, where
 * the API key is and the pages to open; on the first, the key itself; and at `/`, a page of links.
 */
describe('start-up, as a developer sees it on SQLite', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(60_000);
  let dataDir: string;
  let running: ApiProcess | undefined;

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-start-'));
  });
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Starts the server and waits for its `Ready at` line: `GET /healthz` may answer before the line
   * (logged once the server listens) has come through the pipe.
   */
  const start = async () => {
    const started = await startApiProcess(
      { kind: 'sqlite', filename: path.join(dataDir, 'payments.sqlite') },
      { LOG_LEVEL: 'info', ROLE: 'all', BOOTSTRAP_API_KEY: '' },
    );
    running = started;
    await eventually(() => expect(logLines(started.output(), 'Ready at')).to.have.length(1), 10_000);
    return started;
  };

  it('prints the URL, the database, where the key is and the pages, on the first start and the next', async () => {
    const first = await start();
    const keyFile = path.join(dataDir, 'dev-api-key');
    const key = fs.readFileSync(keyFile, 'utf8').trim();
    expect(logLines(first.output(), 'Development account created')[0].msg).to.include(key);
    // The publishable key, beside the secret one: printed, and saved for the pages that show it.
    const publishable = fs.readFileSync(path.join(dataDir, 'dev-publishable-key'), 'utf8').trim();
    expect(publishable).to.match(/^pk_test_/);
    expect(logLines(first.output(), 'Development account created')[0].msg).to.include(`Publishable key: ${publishable}`);
    const [ready] = logLines(first.output(), 'Ready at');
    expect(ready).to.include({
      url: first.url,
      database: `SQLite ${path.join(dataDir, 'payments.sqlite')}`,
      api_key: keyFile,
      docs: `${first.url}/docs`,
      graphql: `${first.url}/graphql`,
      dashboard: `${first.url}/dashboard`,
    });
    await first.stop();

    const second = await start();
    const [again] = logLines(second.output(), 'Ready at');
    expect(again).to.include({ url: second.url, api_key: keyFile });
    // The key is printed only when it is made: the next starts say where it is.
    expect(second.output()).to.not.include(key);
  });

  it('answers GET / with a page linking to the reference, GraphQL and the dashboard, each of which answers', async () => {
    const server = await start();
    const home = await fetch(`${server.url}/`);
    expect(home.status).to.equal(200);
    expect(home.headers.get('content-type')).to.match(/^text\/html/);
    expect(home.headers.get('content-security-policy')).to.be.a('string');
    const html = await home.text();
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1]);
    expect(links).to.include.members(['/docs', '/graphql', '/dashboard', '/openapi.yaml']);
    // As a browser follows them: relative to the page (the receipts' origin is an absolute link).
    for (const link of links) {
      const page = await fetch(new URL(link, `${server.url}/`), { headers: { Accept: 'text/html' } });
      expect(page.status, link).to.equal(200);
    }
  });
});
