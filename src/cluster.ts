/**
 * Several API processes on one port (`WEB_CONCURRENCY` > 1 on Postgres), with node:cluster.
 *
 * The primary process only supervises. By the time it forks, main.ts has migrated the database and
 * made the admin credentials and the development account, once, so the children find them instead
 * of racing to make them (and a generated key is printed once). It then closes its database: a
 * supervisor holds no connection and serves nothing, so no request, delivery or query can stall or
 * crash it, and it is always free to replace a child or pass on a signal.
 *
 * Its children run main.ts again (node:cluster forks the primary's own entry with its Node options:
 * dist/server.mjs under `npm start` and the tests, src/main.ts through tsx under `npm run dev`):
 * `WEB_CONCURRENCY` API processes with `ROLE=api`, all listening on `PORT` (the primary holds the
 * socket and hands connections to them in turn), and, when `ROLE=all`, one more with `ROLE=worker`,
 * so the webhook worker and its timers run in exactly one process (a crashed worker child is
 * replaced like an API one). Guarantees:
 *
 * - Start: the first API child listens before the others are forked, and the start succeeds once
 *   every child says it is ready; a child that exits before then fails the whole start (it printed
 *   its one line, e.g. the port is taken), and the others are stopped.
 * - A child that dies afterwards is replaced, at most `WEB_CONCURRENCY` times in a minute; one more
 *   death and the cluster gives up (`onGiveUp`), rather than fork a crashing process forever.
 * - `stop()` sends SIGTERM to every child, which finishes its in-flight requests and attempts as a
 *   single process does, and resolves once all have exited; one still running after 30 s is killed.
 *   A child whose primary vanishes exits too (node:cluster ends a child whose IPC channel closes).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { DatabaseTarget } from './db/knex.js';
import { servesSeveralProcesses } from './db/open-database.js';
import type { Clock } from './domain/clock.js';
import type { Logger } from './logging/logger.js';
import { StartupError } from './startup-failure.js';

const RESTART_WINDOW_MS = 60_000;
const STOP_GRACE_MS = 30_000;
const READY = 'payments-api:ready';

/** The role a child runs: `api` (one of `WEB_CONCURRENCY`) or the one `worker`. */
type ChildRole = 'api' | 'worker';

/** What a child sends the primary once it serves (`reportReady`). */
interface ReadyMessage {
  type: typeof READY;
  url?: string;
}

/**
 * How many API processes this start runs: `WEB_CONCURRENCY`, except in a cluster's child (one: its
 * own), with `ROLE=worker` (it has no API; more workers are more processes, started apart) and on
 * SQLite (one writer per file), where a warning at start says why the setting is not applied.
 */
export function apiProcessCount(config: Pick<Config, 'webConcurrency' | 'role'>, target: DatabaseTarget, logger: Logger): number {
  const wanted = config.webConcurrency;
  if (wanted === 1 || cluster.isWorker) return 1;
  if (config.role === 'worker') {
    logger.warn(
      { web_concurrency: wanted },
      `WEB_CONCURRENCY=${wanted} does not apply to ROLE=worker: this is one worker process; ` +
        'start more of them to add workers (they never claim a delivery twice)',
    );
    return 1;
  }
  if (!servesSeveralProcesses(target)) {
    logger.warn(
      { web_concurrency: wanted },
      `WEB_CONCURRENCY=${wanted} is not applied on SQLite: one process serves. SQLite has one writer, ` +
        'so several processes on one file would wait on its lock; use Postgres (DATABASE_URL) to run several',
    );
    return 1;
  }
  return wanted;
}

/** Whether this process is a child of a cluster (its primary says when it is ready). */
export function isClusterChild(): boolean {
  return cluster.isWorker;
}

/** In a cluster's child, tells the primary that it serves (at `url`, for an API child); elsewhere does nothing. */
export function reportReady(url: string | undefined): void {
  if (cluster.isWorker && process.connected) process.send!({ type: READY, url } satisfies ReadyMessage);
}

/**
 * A child that exited before it was ready, which fails the start. `reported`: it exited with status
 * 1, after printing its own line on stderr (main.ts prints nothing more).
 */
export class ChildStartFailure extends StartupError {
  constructor(
    role: ChildRole,
    readonly reported: boolean,
    exit: string,
  ) {
    super(`the ${role === 'api' ? 'API' : 'worker'} process stopped during the start (${exit})`);
  }
}

/** What the cluster needs besides the plan. */
export interface ClusterChoices {
  logger: Logger;
  clock: Clock;
  /** Children died more often than the restart budget allows: stop the cluster and exit, saying `reason`. */
  onGiveUp(reason: string): void;
}

/** `WEB_CONCURRENCY` API children, and one worker child when `worker` (configured `ROLE=all`). */
export interface ClusterPlan {
  apiProcesses: number;
  worker: boolean;
}

/** The supervisor of the children (see the header for what it guarantees). */
export class ApiCluster {
  private readonly children = new Map<Worker, ChildRole>();
  /** When each replacement of the last minute was forked. */
  private restarts: number[] = [];
  private started = false;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly plan: ClusterPlan,
    private readonly choices: ClusterChoices,
  ) {}

  /** Forks the children and resolves with the API's URL once every one is ready; stops them all if one fails. */
  async start(): Promise<string> {
    try {
      const url = await whenReady(this.fork('api'), 'api');
      const rest: ChildRole[] = Array.from({ length: this.plan.apiProcesses - 1 }, () => 'api');
      if (this.plan.worker) rest.push('worker');
      await Promise.all(rest.map((role) => whenReady(this.fork(role), role)));
      this.started = true;
      return url!;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  /** Stops every child (SIGTERM, then SIGKILL after the grace period); resolves once all have exited. Once only. */
  stop(): Promise<void> {
    this.stopping ??= this.stopChildren();
    return this.stopping;
  }

  private fork(role: ChildRole): Worker {
    const child = cluster.fork({ ROLE: role });
    this.children.set(child, role);
    child.once('exit', (code: number | null, signal: string | null) => this.exited(child, describeExit(code, signal)));
    this.choices.logger.info({ pid: child.process.pid, role }, `${role} process forked`);
    return child;
  }

  /** A child exited: expected while stopping; a failed start's during it (see `start`); else replaced, within budget. */
  private exited(child: Worker, exit: string): void {
    const role = this.children.get(child)!;
    this.children.delete(child);
    if (!this.started || this.stopping) return;
    const now = this.choices.clock.nowMs();
    this.restarts = this.restarts.filter((at) => now - at < RESTART_WINDOW_MS);
    if (this.restarts.length >= this.plan.apiProcesses) {
      const reason =
        `processes keep dying: ${this.restarts.length} replaced in the last minute ` +
        `(at most WEB_CONCURRENCY=${this.plan.apiProcesses}), and now the ${role} process ${child.process.pid} (${exit})`;
      this.choices.logger.error({ pid: child.process.pid, role }, reason);
      this.choices.onGiveUp(reason);
      return;
    }
    this.restarts.push(now);
    this.choices.logger.error({ pid: child.process.pid, role }, `${role} process ${child.process.pid} died (${exit}); starting another`);
    this.fork(role);
  }

  private async stopChildren(): Promise<void> {
    const children = [...this.children.keys()].filter((child) => !child.isDead());
    const exits = children.map((child) => new Promise<void>((resolve) => child.process.once('exit', () => resolve())));
    // Not `child.kill()`: that disconnects first, and a child that loses its channel exits at once,
    // without finishing its requests. SIGTERM runs its own graceful shutdown (main.ts).
    for (const child of children) child.process.kill('SIGTERM');
    const cut = setTimeout(() => {
      for (const child of children) if (!child.isDead()) child.process.kill('SIGKILL');
    }, STOP_GRACE_MS);
    await Promise.all(exits);
    clearTimeout(cut);
  }
}

/** Resolves with the child's URL (an API child's) once it reports ready; rejects if it exits first. */
function whenReady(child: Worker, role: ChildRole): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Partial<ReadyMessage>) => {
      if (message?.type !== READY) return;
      child.off('exit', onExit);
      child.off('message', onMessage);
      resolve(message.url);
    };
    const onExit = (code: number | null, signal: string | null) => {
      child.off('message', onMessage);
      reject(new ChildStartFailure(role, code === 1, describeExit(code, signal)));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

function describeExit(code: number | null, signal: string | null): string {
  return signal ? `killed by ${signal}` : `exit status ${code}`;
}
