/**
 * A PostgreSQL primary and a streaming replica of it, made for one test file from the machine's
 * server binaries (`initdb`, `pg_ctl`, `pg_basebackup`), run as the `postgres` OS user in
 * temporary directories, each on a free port of its own. Replay on the replica can be paused, so
 * that a test sees what a lagging replica answers.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { eventually } from './eventually.js';

const run = promisify(execFile);

/** Where Debian and Ubuntu install the server binaries, one directory per major version. */
const POSTGRES_LIB = '/usr/lib/postgresql';
const OS_USER = 'postgres';
const DATABASE = 'payments';

/** The newest `…/<version>/bin` holding `initdb` and `pg_basebackup`, or undefined when there is none. */
export function postgresBinDir(): string | undefined {
  if (!fs.existsSync(POSTGRES_LIB)) return undefined;
  const versions = fs
    .readdirSync(POSTGRES_LIB)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = path.join(POSTGRES_LIB, version, 'bin');
    if (['initdb', 'pg_ctl', 'pg_basebackup'].every((tool) => fs.existsSync(path.join(bin, tool)))) return bin;
  }
  return undefined;
}

/**
 * Why a replica cannot be made here (no server binaries, no `postgres` user, not root), or
 * undefined when it can. A suite skips with this reason; anything else that fails is a failure.
 */
export function replicaUnavailableReason(): string | undefined {
  if (!postgresBinDir()) return `no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) under ${POSTGRES_LIB}`;
  if (process.getuid?.() !== 0) return `the servers run as the ${OS_USER} OS user, which needs the tests to run as root`;
  if (!osUserIds()) return `no ${OS_USER} OS user`;
  return undefined;
}

function osUserIds(): { uid: number; gid: number } | undefined {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${OS_USER}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A primary and its streaming replica, both running. */
export interface ReplicatedPostgres {
  /** `postgres://…` of the primary's `payments` database. */
  primaryUrl: string;
  /** The same database on the replica (read-only: a hot standby). */
  replicaUrl: string;
  /** Stops applying WAL on the replica (it still receives it): from now on it lags. */
  pauseReplay(): Promise<void>;
  /** Applies WAL again; `caughtUp()` waits until it has applied all the primary wrote. */
  resumeReplay(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  /** Stops the replica alone (`pg_ctl stop -m immediate`), as a crash would. */
  stopReplica(): Promise<void>;
  /** Starts the replica again; resolves once it streams from the primary. */
  startReplica(): Promise<void>;
  /** Stops both servers (`pg_ctl stop -m immediate`) and removes their directories. */
  stop(): Promise<void>;
}

/** A TCP port that nothing listens on now, picked by the OS. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs one of the server's tools as the `postgres` OS user. */
async function asPostgres(bin: string, tool: string, args: string[], cwd: string): Promise<void> {
  await run('runuser', ['-u', OS_USER, '--', path.join(bin, tool), ...args], { cwd });
}

/** One query on its own connection. */
async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

function urlOf(port: number, database: string): string {
  return `postgres://${OS_USER}@127.0.0.1:${port}/${database}`;
}

/** Starts a server on a data directory: TCP on 127.0.0.1 only, its socket inside its own directory. */
async function startServer(bin: string, dataDir: string, port: number, root: string): Promise<void> {
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dataDir}`,
    '-c wal_level=replica',
    '-c max_wal_senders=4',
    '-c hot_standby=on',
    // Test data need not survive a crash of the machine.
    '-c fsync=off',
  ].join(' ');
  await asPostgres(bin, 'pg_ctl', ['-D', dataDir, '-o', options, '-l', `${dataDir}.log`, '-w', '-t', '60', 'start'], root);
}

/**
 * Makes a primary (`initdb`, trust on 127.0.0.1 for connections and replication) and a replica
 * (`pg_basebackup -R`, which writes `primary_conninfo` and `standby.signal`), starts both, and
 * resolves once the replica streams from the primary and has the `payments` database.
 */
export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const bin = postgresBinDir();
  const ids = osUserIds();
  if (!bin || !ids) throw new Error(replicaUnavailableReason());
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-replica-'));
  fs.chownSync(root, ids.uid, ids.gid);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const started: string[] = [];
  const stop = async () => {
    // Immediate: nothing to flush, and a smart shutdown would wait for the tests' pooled connections.
    for (const dataDir of started.reverse()) {
      await asPostgres(bin, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], root).catch(() => undefined);
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    await asPostgres(bin, 'initdb', ['-D', primaryDir, '-U', OS_USER, '-A', 'trust', '--no-sync'], root);
    fs.appendFileSync(path.join(primaryDir, 'pg_hba.conf'), '\nhost replication all 127.0.0.1/32 trust\n');
    await startServer(bin, primaryDir, primaryPort, root);
    started.push(primaryDir);
    await query(urlOf(primaryPort, 'postgres'), `CREATE DATABASE ${DATABASE}`);
    await asPostgres(
      bin,
      'pg_basebackup',
      ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', OS_USER, '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
      root,
    );
    await startServer(bin, replicaDir, replicaPort, root);
    started.push(replicaDir);
  } catch (error) {
    await stop();
    throw error;
  }
  const primaryUrl = urlOf(primaryPort, DATABASE);
  const replicaUrl = urlOf(replicaPort, DATABASE);
  const caughtUp = () => waitForReplay(primaryUrl, replicaUrl);
  const streaming = () =>
    eventually(async () => {
      const [receiver] = await query<{ status: string }>(replicaUrl, 'SELECT status FROM pg_stat_wal_receiver');
      if (receiver?.status !== 'streaming') throw new Error(`the replica is not streaming yet (${receiver?.status ?? 'no WAL receiver'})`);
    }, 30_000);
  await streaming();
  return {
    primaryUrl,
    replicaUrl,
    async pauseReplay() {
      await query(replicaUrl, 'SELECT pg_wal_replay_pause()');
      // Replay stops at the next record it reaches: a transaction with an id commits one, rather
      // than waiting for the primary's next checkpoint or standby snapshot to write one.
      await eventually(async () => {
        await query(primaryUrl, 'SELECT pg_current_xact_id()');
        const [{ state }] = await query<{ state: string }>(replicaUrl, 'SELECT pg_get_wal_replay_pause_state() AS state');
        if (state !== 'paused') throw new Error(`replay is ${state}, not paused`);
      }, 30_000);
    },
    async resumeReplay() {
      await query(replicaUrl, 'SELECT pg_wal_replay_resume()');
    },
    caughtUp,
    async stopReplica() {
      await asPostgres(bin, 'pg_ctl', ['-D', replicaDir, '-m', 'immediate', '-w', 'stop'], root);
    },
    async startReplica() {
      await startServer(bin, replicaDir, replicaPort, root);
      await streaming();
    },
    stop,
  };
}

/** Waits until the replica has replayed the WAL up to the primary's position when this was called. */
async function waitForReplay(primaryUrl: string, replicaUrl: string): Promise<void> {
  const [{ lsn }] = await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
  await eventually(async () => {
    const [{ behind }] = await query<{ behind: boolean }>(
      replicaUrl,
      `SELECT pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn AS behind`,
    );
    if (behind) throw new Error(`the replica has not replayed up to ${lsn} yet`);
  }, 30_000);
}
