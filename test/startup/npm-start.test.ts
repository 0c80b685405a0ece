import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '../helpers/api-process.js';
import { createDatabase, forEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { databaseEnv } from '../helpers/run-main.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The build (tsc) and the start of up to four processes on a busy machine; a start that hangs still fails. */
const START_TIMEOUT_MS = 240_000;
/** A cluster's stop waits up to 30 s for a child (cluster.ts); a few seconds more for the exits to be seen. */
const STOP_TIMEOUT_MS = 40_000;
const API_KEY = 'sk_test_npmStart00000001';

/** A process of the group `npm start` leads. */
interface Member {
  pid: number;
  ppid: number;
  command: string;
}

/** Every process whose process group is `pgid`, from /proc (Linux). */
function groupMembers(pgid: number): Member[] {
  const members: Member[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command's `(...)`: state, ppid, pgrp, …
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) !== pgid) continue;
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      members.push({ pid: Number(entry), ppid: Number(ppid), command });
    } catch {
      // It exited while being read.
    }
  }
  return members;
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A request in flight: `POST /v1/customers` whose headers are sent now and whose body is sent by
 * `finish`, which resolves with the response.
 */
async function startRequest(port: number): Promise<{ finish(): Promise<string> }> {
  const body = JSON.stringify({ email: 'in-flight@example.com' });
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let response = '';
  socket.on('data', (chunk: Buffer) => (response += chunk.toString()));
  const ended = new Promise<string>((resolve) => socket.once('close', () => resolve(response)));
  // `Expect: 100-continue`: the server answers "100 Continue" once it has the request's headers,
  // so the stop that follows finds the request in flight, not bytes still on their way (which a
  // closing server may drop with the idle connections).
  socket.write(
    `POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${API_KEY}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
  );
  const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
  await new Promise<void>((resolve, reject) => {
    const check = () => response.startsWith(CONTINUE) && (socket.off('data', check), resolve());
    socket.on('data', check);
    socket.once('close', () => reject(new Error(`closed before 100 Continue: ${JSON.stringify(response)}`)));
  });
  return { finish: () => (socket.end(body), ended.then((answer) => answer.slice(CONTINUE.length))) };
}

/**
 * `npm start` as a person runs it, in its own process group (so the test can find, and at worst
 * kill, everything it started), on a free port and a temporary `DATA_DIR`.
 */
function npmStart(env: Record<string, string>) {
  const { DATABASE_URL: _inherited, ...base } = process.env;
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...base,
      ...{ HOST: '127.0.0.1', LOG_LEVEL: 'info', ADMIN_USER: 'admin', ADMIN_PASSWORD: 'test-admin-password', BOOTSTRAP_API_KEY: API_KEY },
      // The request in flight at the stop sends its body late.
      HTTP_BODY_TIMEOUT_SECONDS: '120',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const readyLine = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; url?: string })
      .find((line) => line.msg.startsWith('Ready at'));
  return { pid: child.pid!, exited, readyLine, output: () => `${stdout}${stderr}` };
}

forEachDatabase('npm start: one process tree, stopped as a whole by a signal to its PID', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  // SQLite serves from one process; Postgres with WEB_CONCURRENCY=2 from a primary, two API
  // processes and the worker. One is stopped as a service manager does (SIGTERM to npm's PID),
  // the other as Ctrl-C does: SIGINT to every process of the terminal's group, so the server gets
  // it twice, from the terminal and from npm, here in that order and during a request, which the
  // second must not cut short.
  const cluster = engine === 'postgres';
  const stop = cluster ? 'SIGTERM to the PID' : 'Ctrl-C (SIGINT to the server, then to npm, which passes it on) during a request';

  it(`runs the compiled server as npm's own child, and ${stop} stops every process and the port`, async function () {
    this.timeout(START_TIMEOUT_MS + STOP_TIMEOUT_MS + 30_000);
    const database = await createDatabase(engine);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
    const port = await freePort();
    const npm = npmStart({
      PORT: String(port),
      DATA_DIR: dataDir,
      ...databaseEnv(database.target),
      ...(cluster ? { WEB_CONCURRENCY: '2' } : {}),
    });
    try {
      await eventually(() => expect(npm.readyLine(), 'no "Ready at" line yet').to.not.equal(undefined), START_TIMEOUT_MS).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}\n${npm.output()}`);
        },
      );
      const url = `http://127.0.0.1:${port}`;
      expect(npm.readyLine()!.url).to.equal(url);

      // The server is bundled JavaScript, and npm's direct child: no shell or loader stands between
      // them to swallow the signal npm passes on.
      const members = groupMembers(npm.pid);
      const server = members.filter((member) => member.command.endsWith('dist/server.mjs'));
      const primary = server.find((member) => member.ppid === npm.pid);
      expect(primary, JSON.stringify(members, null, 2)).to.not.equal(undefined);
      expect(primary!.command).to.match(/^\S*node dist\/server\.mjs$/);
      // The cluster's children run the same compiled entry: two API processes and the worker.
      expect(server.filter((member) => member.ppid === primary!.pid), JSON.stringify(members, null, 2)).to.have.length(cluster ? 3 : 0);

      // What the server reads from the project at run time is found from dist/ too.
      for (const [page, type] of [
        ['/healthz', 'application/json'],
        ['/openapi.json', 'application/json'],
        ['/docs', 'text/html'],
        ['/graphql', 'text/html'],
        ['/dashboard', 'text/html'],
      ]) {
        const response = await fetch(`${url}${page}`, { headers: { accept: 'text/html, application/json;q=0.9' } });
        expect(response.status, page).to.equal(200);
        expect(response.headers.get('content-type'), page).to.include(type);
      }

      if (cluster) process.kill(npm.pid, 'SIGTERM');
      else {
        const request = await startRequest(port);
        process.kill(primary!.pid, 'SIGINT');
        await eventually(() => expect(npm.output()).to.include('"msg":"shutting down"'), STOP_TIMEOUT_MS);
        process.kill(npm.pid, 'SIGINT');
        // Long enough for the signal to arrive (microseconds); not a measure of anything.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await request.finish(), 'the request in flight at the stop').to.match(/^HTTP\/1\.1 200 /);
      }
      // 0: the server finished its shutdown and exited by itself (npm exits as its script did).
      const { code } = await npm.exited;
      expect(code, npm.output()).to.equal(0);
      await eventually(() => expect(groupMembers(npm.pid), 'still running').to.deep.equal([]), STOP_TIMEOUT_MS);
      expect(await listening(port), `port ${port} still listening`).to.equal(false);
      expect(npm.output()).to.include('"msg":"shutting down"');
      if (database.target.kind === 'sqlite') {
        expect(fs.existsSync(`${database.target.filename}-wal`), 'the SQLite database was not closed').to.equal(false);
      }
    } finally {
      if (groupMembers(npm.pid).length > 0) process.kill(-npm.pid, 'SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  });
});
