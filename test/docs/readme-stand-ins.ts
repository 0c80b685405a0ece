/**
 * What the README test does instead of the commands that cannot run as written inside the suite:
 * starting the server (the test starts it as `npm start` does, from the project folder, and checks
 * what the text says a start prints and saves), running the suite, the commands that would hold
 * a terminal (a receiver, `payments listen`, `payments logs tail`), and an id the reader copies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { createDatabase, POSTGRES_ADMIN_URL } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { logLines, type ReadmeServer } from '../helpers/readme-server.js';
import type { ReadmeProject } from '../helpers/readme-project.js';
import type { StandIn } from '../helpers/readme-runner.js';

/** The fixed ports of the README, the server's (`PORT`'s default) first: each is given a free one. */
export const README_PORTS = [4242, 4343, 4443, 3000];

/** `A=1 B=2 ` → `{A: '1', B: '2'}`. */
function settingsOf(assignments: string): Record<string, string> {
  return Object.fromEntries(
    assignments
      .trim()
      .split(/\s+/)
      .map((assignment) => [assignment.slice(0, assignment.indexOf('=')), assignment.slice(assignment.indexOf('=') + 1)]),
  );
}

/** What the text says of a start: one last line with where it listens, the database, the key's place and the pages. */
function expectReadyLine(server: ReadmeServer, project: ReadmeProject, database: string): void {
  const ready = server.readyLine();
  expect(ready, 'the line every start ends with').to.include({
    url: server.url,
    database,
    api_key: path.join(project.realDir(), 'data', 'dev-api-key'),
    docs: `${server.url}/docs`,
    graphql: `${server.url}/graphql`,
    dashboard: `${server.url}/dashboard`,
  });
}

function sqliteFile(project: ReadmeProject): string {
  return `SQLite ${path.join(project.realDir(), 'data', 'payments.sqlite')}`;
}

/**
 * The first start: it migrates the database, creates a development account and prints its key
 * (saved in `data/dev-api-key`), generates admin credentials (saved in `data/admin-credentials`),
 * ends with its ready line, and `/` links to the reference, GraphQL and the dashboard.
 */
async function firstStart(project: ReadmeProject): Promise<void> {
  expect(fs.existsSync(path.join(project.dir, 'data')), 'a fresh project has no data/ yet').to.equal(false);
  const server = await project.restartServer({});
  const key = project.dataFile('dev-api-key');
  expect(key).to.match(/^sk_test_\w+$/);
  expect(logLines(server.output(), 'Development account created')[0]?.msg).to.include(key);
  const admin = project.dataFile('admin-credentials');
  expect(admin).to.match(/^admin:\S+$/);
  expect(logLines(server.output(), 'Admin credentials generated')[0]?.msg).to.include(admin);
  expect(logLines(server.output(), 'database migrated')).to.have.length(1);
  expectReadyLine(server, project, sqliteFile(project));
  const home = await (await fetch(`${server.url}/`)).text();
  for (const page of ['/docs', '/graphql', '/dashboard']) expect(home).to.include(`href="${page}"`);
}

/** Whether the test's Postgres server answers; CI (`REQUIRE_POSTGRES=true`) fails instead of skipping. */
async function postgresUnreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    if (process.env.REQUIRE_POSTGRES === 'true') throw new Error(`REQUIRE_POSTGRES is set but Postgres is unreachable: ${String(error)}`);
    return `Postgres is not reachable at ${POSTGRES_ADMIN_URL}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * `VAR=value … npm start`: the server stopped (Ctrl-C) and started again with those settings,
 * ports rewritten like the commands', `DATABASE_URL` a new database on the test's Postgres server.
 */
async function restartWith(settings: Record<string, string>, project: ReadmeProject): Promise<string | void> {
  const resolved: Record<string, string> = {};
  let postgresUrl: string | undefined;
  for (const [name, value] of Object.entries(settings)) {
    if (name.endsWith('_PORT') || name === 'PORT') {
      resolved[name] = String(project.port(Number(value)));
    } else if (name === 'DATABASE_URL') {
      const unreachable = await postgresUnreachable();
      if (unreachable) return unreachable;
      const database = await createDatabase('postgres');
      project.onClose(() => database.drop());
      postgresUrl = (database.target as { url: string }).url;
      resolved[name] = postgresUrl;
    } else {
      resolved[name] = value;
    }
  }
  const keyBefore = project.dataFile('dev-api-key');
  const server = await project.restartServer(resolved);
  if (postgresUrl) {
    // A new database: the start makes a development account there and saves its key.
    expectReadyLine(server, project, postgresUrl);
    expect(project.dataFile('dev-api-key')).to.not.equal(keyBefore);
    expect((await project.api('/v1/customers')).object).to.equal('list');
  } else {
    // The same ./data: the account and key of the first start are still there.
    expectReadyLine(server, project, sqliteFile(project));
    expect(project.dataFile('dev-api-key')).to.equal(keyBefore);
  }
}

export const README_STAND_INS: StandIn[] = [
  {
    command: /^npm install && npm start$/,
    does: "the server's first start from the project folder, SQLite in a new ./data (this checkout's dependencies are installed)",
    run: (_, project) => firstStart(project),
  },
  {
    command: /^((?:BENCH_[A-Z_]+=\S+ )+)npm run bench$/,
    does: 'not run (a load test of the whole machine, minutes long): the script exists and every BENCH_ setting it names is one the bench reads',
    run: async (match) => {
      const root = path.resolve(import.meta.dirname, '../..');
      const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
      expect(scripts.bench, 'npm run bench').to.be.a('string');
      const sources = fs
        .readdirSync(path.join(root, 'bench'), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => fs.readFileSync(path.join(root, 'bench', file), 'utf8'))
        .join('\n');
      for (const name of Object.keys(settingsOf(match[1]))) expect(sources, `the bench reads ${name}`).to.include(name);
    },
  },
  {
    command: /^npm test$/,
    does: 'not run: it is the suite this test is part of',
    run: async () => undefined,
  },
  {
    command: /^((?:[A-Z_]+=\S+ )+)npm start$/,
    does: 'the server stopped by PID (SIGINT, as Ctrl-C) and started again with these settings (ports rewritten; DATABASE_URL a new database on the test Postgres)',
    run: (match, project) => restartWith(settingsOf(match[1]), project),
  },
  {
    command: /^npx payments listen --forward-to \S+$/,
    does: 'run from the shell in the background (the README gives it a terminal) until it is ready; stopped by PID at the end',
    run: (match, project) => project.startInBackground('listen', match[0], /^Ready! .* whsec_\w+/m),
  },
  {
    command: /^(WEBHOOK_SECRET=\$\(npx payments listen --print-secret\)) node scripts\/receive-webhooks\.mjs (\d+)$/,
    does: 'run from the shell in the background on a free port; stopped by PID at the end',
    run: async (match, project) => {
      // A log of its own: the tour's receiver may still be writing to the other.
      await project.startReceiver(`${match[1]} node scripts/receive-webhooks.mjs ${project.port(Number(match[2]))}`, 'handler');
      // The secret the handler verifies with is the one listen announced.
      const secret = project.dataFile('listen-webhook-secret');
      expect(project.backgroundLog('listen')).to.include(`Your webhook signing secret is ${secret}`);
    },
  },
  {
    command: /^npx payments logs tail$/,
    does: 'run from the shell in the background until it follows the log; stopped by PID at the end',
    run: (match, project) => project.startInBackground('logs', match[0], 'Following the request log'),
  },
  {
    command: /^(npx payments events resend) evt_… (.+)$/,
    does: 'run with the id of the charge.succeeded event that listen printed in place of evt_…',
    run: async (match, project) => {
      const id = /charge\.succeeded {2}(evt_\w+)/.exec(project.backgroundLog('listen'))?.[1];
      if (!id) throw new Error(`listen printed no charge.succeeded event:\n${project.backgroundLog('listen')}`);
      const resent = await project.shell.run(project.rewrite(`${match[1]} ${id} ${match[2]}`));
      expect(resent.exitCode, resent.stderr).to.equal(0);
      // The handler gets it a second time, verified.
      await eventually(() => expect(project.receiverLog('handler').split(id).length - 1).to.equal(2), 10_000);
      expect(project.receiverLog('handler')).to.not.include('INVALID');
    },
  },
  {
    command: /^node scripts\/receive-webhooks\.mjs (\d+)$/,
    does: 'run from the shell in the background (the README gives it a terminal) on a free port; stopped by PID at the end',
    run: (match, project) => project.startReceiver(`node scripts/receive-webhooks.mjs ${project.port(Number(match[1]))}`),
  },
];
