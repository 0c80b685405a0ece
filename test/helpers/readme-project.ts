/**
 * A throwaway folder laid out like the project for the README's commands: `scripts/` is the
 * checkout's, `data/` is what the server makes of it on its first start. It owns everything the
 * commands run with: one shell (the README's second terminal), the server process, the commands
 * the README runs in terminals of their own (the webhook receiver, `payments listen`), and the
 * free ports that stand in for the README's fixed ones.
 */
import fs from 'node:fs';
import { freePort } from './api-process.js';
import os from 'node:os';
import path from 'node:path';
import { ShellSession } from './readme-shell.js';
import { startReadmeServer, type ReadmeServer } from './readme-server.js';
import { eventually } from './eventually.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAYMENTS_BIN = path.join(ROOT, 'bin/payments.mjs');

export class ReadmeProject {
  /** The server the commands talk to now, if one runs. */
  server: ReadmeServer | undefined;
  private readonly backgroundPids: number[] = [];
  private readonly cleanups: Array<() => Promise<void>> = [];

  private constructor(
    /** The project-like folder: the shell's and the server's working directory. */
    readonly dir: string,
    private readonly logs: string,
    /** The README's port → the free port used instead. */
    private readonly ports: Map<number, number>,
    /** The server's port in the README (`PORT`'s default). */
    private readonly serverPort: number,
    readonly shell: ShellSession,
  ) {}

  /** A new project folder, with a free port for each of `readmePorts`; the first is the server's. */
  static async create(readmePorts: number[]): Promise<ReadmeProject> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-readme-'));
    const dir = path.join(root, 'project');
    const logs = path.join(root, 'logs');
    fs.mkdirSync(dir);
    fs.mkdirSync(logs);
    fs.symlinkSync(path.join(ROOT, 'scripts'), path.join(dir, 'scripts'));
    const ports = new Map<number, number>();
    for (const port of readmePorts) ports.set(port, await freePort());
    const nodeDir = path.dirname(process.execPath);
    const env = { PATH: `${nodeDir}${path.delimiter}${process.env.PATH ?? ''}`, HOME: os.homedir(), LANG: 'C.UTF-8' };
    const project = new ReadmeProject(dir, logs, ports, readmePorts[0], new ShellSession(dir, env));
    project.cleanups.push(() => fs.promises.rm(root, { recursive: true, force: true }));
    return project;
  }

  /** The free port used for the README's `port`; throws for a port the test was not told about. */
  port(readmePort: number): number {
    const port = this.ports.get(readmePort);
    if (port === undefined) throw new Error(`the README uses port ${readmePort}, which the test does not map to a free port`);
    return port;
  }

  /**
   * `text` with `npx payments` run as this checkout's `payments` command (the folder is not an npm
   * project, where npx would fetch a package of that name from the registry), pointed at the
   * README's server, and with every `127.0.0.1:<port>` of the README pointed at the port used instead.
   */
  rewrite(text: string): string {
    return text
      .replace(/\bnpx payments\b/g, `node '${PAYMENTS_BIN}' --api-base http://127.0.0.1:${this.serverPort}`)
      .replace(/127\.0\.0\.1:(\d+)/g, (_, port: string) => `127.0.0.1:${this.port(Number(port))}`);
  }

  /** Stops the running server, if any (Ctrl-C), and starts it again with `settings` (`npm start`). */
  async restartServer(settings: Record<string, string>): Promise<ReadmeServer> {
    await this.server?.stop();
    this.server = undefined;
    this.server = await startReadmeServer(this.dir, this.port(this.serverPort), settings);
    return this.server;
  }

  /** Runs `command` (a receiver's, port rewritten) from the shell in the background; waits until it listens. */
  startReceiver(command: string, name = 'receiver'): Promise<void> {
    return this.startInBackground(name, command, 'receiving webhooks on');
  }

  /** What the receiver `name` printed so far. */
  receiverLog(name = 'receiver'): string {
    return this.backgroundLog(name);
  }

  /**
   * Runs `command` (rewritten) from the shell in the background, its stdout and stderr in the log
   * `name`; waits until the log shows `ready`. Stopped by PID when the project closes.
   */
  async startInBackground(name: string, command: string, ready: string | RegExp): Promise<void> {
    const log = this.logFile(name);
    const started = await this.shell.run(`${this.rewrite(command)} > '${log}' 2>&1 & echo $!`);
    this.backgroundPids.push(Number(started.stdout.trim()));
    await eventually(() => {
      const text = this.backgroundLog(name);
      if (typeof ready === 'string' ? !text.includes(ready) : !ready.test(text)) throw new Error(`${name} did not start:\n${text}`);
    }, 15_000);
  }

  /** What the background command `name` printed so far. */
  backgroundLog(name: string): string {
    return fs.existsSync(this.logFile(name)) ? fs.readFileSync(this.logFile(name), 'utf8') : '';
  }

  /** The folder's path with symbolic links resolved, as the server names it (it resolves `./data`). */
  realDir(): string {
    return fs.realpathSync(this.dir);
  }

  /** A file `data/<name>` of the project, trimmed. */
  dataFile(name: string): string {
    return fs.readFileSync(path.join(this.dir, 'data', name), 'utf8').trim();
  }

  /** `GET path` on the running server with the development key of `data/dev-api-key`; throws unless 200. */
  async api<T = any>(pathAndQuery: string): Promise<T> {
    if (!this.server) throw new Error('no server is running');
    const res = await fetch(`${this.server.url}${pathAndQuery}`, { headers: { Authorization: `Bearer ${this.dataFile('dev-api-key')}` } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET ${pathAndQuery}: ${res.status} ${body}`);
    return JSON.parse(body) as T;
  }

  /** Runs `cleanup` when the project is closed (before the folder is removed). */
  onClose(cleanup: () => Promise<void>): void {
    this.cleanups.unshift(cleanup);
  }

  /** Stops the receiver and the server by their PIDs, ends the shell, removes the folder. */
  async close(): Promise<void> {
    for (const pid of this.backgroundPids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // it has already exited
      }
    }
    await this.server?.stop();
    await this.shell.close();
    for (const cleanup of this.cleanups) await cleanup();
  }

  private logFile(name: string): string {
    return path.join(this.logs, `${name}.log`);
  }
}
