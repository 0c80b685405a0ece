/**
 * The server as `npm start` runs it (`src/main.ts`, compiled), but from
 * another directory: the process's working directory is a project-like folder, so `./data` (the
 * default `DATA_DIR`) and relative paths in its settings (`TLS_CERT_FILE=tls/server.crt`) are that
 * folder's.
 */
import { spawn } from 'node:child_process';
import { compiledScript } from './server-entry.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
/** The variables of the test's own environment that a server start may see: none of its settings. */
const INHERITED = ['PATH', 'HOME', 'LANG', 'TMPDIR'];

/** A running server process. */
export interface ReadmeServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Everything it wrote (stdout and stderr). */
  output(): string;
  /** The fields of the one line every start ends with (`Ready at …`). */
  readyLine(): Record<string, string>;
  /** Stops it as Ctrl-C does (SIGINT to its PID) and waits for it to exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** The JSON log lines of `output` whose message starts with `prefix`. */
export function logLines(output: string, prefix: string): Array<Record<string, string>> {
  return output
    .split('\n')
    .slice(0, -1) // the last piece is a line still being written, or empty
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, string>)
    .filter((line) => typeof line.msg === 'string' && line.msg.startsWith(prefix));
}

/**
 * Starts the server in `projectDir` on `port` with `settings` (the variables a README command sets
 * before `npm start`) and nothing else of the test's environment that configures it; resolves once
 * it logged its `Ready at` line and `GET /healthz` answers 200.
 */
export async function startReadmeServer(projectDir: string, port: number, settings: Record<string, string>): Promise<ReadmeServer> {
  const inherited = Object.fromEntries(INHERITED.filter((name) => process.env[name]).map((name) => [name, process.env[name]]));
  const child = spawn(process.execPath, compiledScript('src/main.ts'), {
    cwd: projectDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...inherited, PORT: String(port), ...settings },
  });
  let output = '';
  const keep = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (!running()) return exited;
    process.kill(child.pid!, 'SIGINT');
    const cut = setTimeout(() => running() && process.kill(child.pid!, 'SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(cut);
  };

  const url = `http://127.0.0.1:${port}`;
  const server = { url, output: () => output, stop, readyLine: () => logLines(output, 'Ready at')[0] };
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (!running()) throw new Error(`the server exited with ${child.exitCode ?? child.signalCode}:\n${output}`);
    if (server.readyLine() && (await fetch(`${url}/healthz`).then((res) => res.ok, () => false))) return server;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server was not ready after ${START_TIMEOUT_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
