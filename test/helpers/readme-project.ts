/**
 * A throwaway folder laid out like the project for the README's commands: `scripts/` is the
 * checkout's, `data/` is what the server makes of it on its first start. It owns everything the
 * commands run with: one shell (the README's second terminal), the server process, the webhook
 * receiver, and the free ports that stand in for the README's fixed ones.
 */
import fs from 'node:fs';
import { freePort } from './api-process.js';
import os from 'node:os';
import path from 'node:path';
import { ShellSession } from './readme-shell.js';
import { startReadmeServer, type ReadmeServer } from './readme-server.js';
import { eventually } from './eventually.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export class ReadmeProject {
  /** The server the commands talk to now, if one runs. */
  server: ReadmeServer | undefined;
  private receiverPid: number | undefined;
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

  /** `text` with every `127.0.0.1:<port>` of the README pointed at the port used instead. */
  rewrite(text: string): string {
    return text.replace(/127\.0\.0\.1:(\d+)/g, (_, port: string) => `127.0.0.1:${this.port(Number(port))}`);
  }

  /** Stops the running server, if any (Ctrl-C), and starts it again with `settings` (`npm start`). */
  async restartServer(settings: Record<string, string>): Promise<ReadmeServer> {
    await this.server?.stop();
    this.server = undefined;
    this.server = await startReadmeServer(this.dir, this.port(this.serverPort), settings);
    return this.server;
  }

  /** Runs `command` (the receiver's, port rewritten) from the shell in the background; waits until it listens. */
  async startReceiver(command: string): Promise<void> {
    const log = this.receiverLogFile();
    const started = await this.shell.run(`${command} > '${log}' 2>&1 & echo $!`);
    this.receiverPid = Number(started.stdout.trim());
    await eventually(() => {
      if (!fs.readFileSync(log, 'utf8').includes('receiving webhooks on')) throw new Error(`the receiver did not start:\n${this.receiverLog()}`);
    }, 10_000);
  }

  /** What the receiver printed so far. */
  receiverLog(): string {
    return fs.existsSync(this.receiverLogFile()) ? fs.readFileSync(this.receiverLogFile(), 'utf8') : '';
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
    if (this.receiverPid) {
      try {
        process.kill(this.receiverPid, 'SIGTERM');
      } catch {
        // it has already exited
      }
    }
    await this.server?.stop();
    await this.shell.close();
    for (const cleanup of this.cleanups) await cleanup();
  }

  private receiverLogFile(): string {
    return path.join(this.logs, 'receiver.log');
  }
}
