import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A server the bench started as a child process, on 127.0.0.1. */
export interface ServerProcess {
  name: string;
  child: ChildProcess;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The last lines the process wrote (stdout and stderr), for error messages. */
  output(): string;
}

const OUTPUT_KEPT = 8_000;

/** A TCP port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) =>
    probe.once('error', reject).listen(0, '127.0.0.1', resolve),
  );
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Starts `node <args>` in `cwd` with `env` and keeps its last output; does not wait for anything
 * (for a process without an HTTP server, e.g. a `ROLE=worker` process). `url` is `baseUrl`.
 */
export function startProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  cwd = process.cwd(),
  baseUrl = '',
): ServerProcess {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { name, child, url: baseUrl, output: () => output };
}

/** Whether the process has exited (or was killed). */
export function hasExited(server: ServerProcess): boolean {
  return server.child.exitCode !== null || server.child.signalCode !== null;
}

/**
 * Starts `node <args>` in `cwd` on a free port (passed as `PORT`, and to `args` when it is a
 * function, for a program that takes its port on the command line) and resolves once
 * `GET readyPath` answers 200. Rejects, with the process's output, if it exits first or is not
 * ready in time.
 */
export async function startServer(
  name: string,
  args: string[] | ((port: number) => string[]),
  env: Record<string, string>,
  readyPath: string,
  cwd = process.cwd(),
  timeoutMs = 30_000,
): Promise<ServerProcess> {
  const port = await freePort();
  const server = startProcess(
    name,
    typeof args === 'function' ? args(port) : args,
    { ...env, PORT: String(port) },
    cwd,
    `http://127.0.0.1:${port}`,
  );

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited(server)) break;
    const status = await fetch(server.url + readyPath).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return server;
    await sleep(100);
  }
  await stopServer(server);
  throw new Error(
    `${name} did not become ready on ${server.url}${readyPath}. Its output:\n${server.output()}`,
  );
}

/** Stops a server by its PID: SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopServer(server: ServerProcess, graceMs = 5_000): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signal(child.pid, 'SIGTERM');
  const timer = setTimeout(() => signal(child.pid!, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
