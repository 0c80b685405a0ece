/**
 * The server the CLI tests talk to: a real API process over a fresh database of the suite's
 * engine, started before the suite and stopped (by PID) after it.
 */
import { randomBase62 } from '../../src/domain/ids.js';
import { ApiClient } from '../helpers/api-client.js';
import { startApiProcess, type ApiProcess } from '../helpers/api-process.js';
import { createDatabase, type Engine, type TestDatabase } from '../helpers/databases.js';

/** The running server of a suite; `url`, `api` and `process` are set once `before` has run. */
export class CliServer {
  url!: string;
  /** A test client of the server with the same key, to check what the CLI did. */
  api!: ApiClient;
  process!: ApiProcess;
  constructor(
    readonly apiKey: string,
    /**
     * Stops the process and starts another on the same port and database, as a deploy does;
     * `whileDown` runs in between, before the new one starts.
     */
    readonly restart: (whileDown?: () => Promise<unknown>) => Promise<void>,
  ) {}

  /** The environment that gives a CLI process this server's key. */
  cliEnv(): Record<string, string> {
    return { PAYMENTS_API_KEY: this.apiKey };
  }
}

/** Registers `before`/`after` hooks that start and stop an API process (with `env`) for the suite. */
export function useCliServer(engine: Engine, env: Record<string, string> = {}): CliServer {
  const apiKey = `sk_test_cli${randomBase62(20)}`;
  let database: TestDatabase | undefined;
  const server: CliServer = new CliServer(apiKey, async (whileDown) => {
    await server.process.stop();
    await whileDown?.();
    server.process = await startApiProcess(database!.target, { BOOTSTRAP_API_KEY: apiKey, ...env, PORT: new URL(server.url).port });
  });
  before(async function () {
    this.timeout(60_000);
    database = await createDatabase(engine);
    server.process = await startApiProcess(database.target, { BOOTSTRAP_API_KEY: apiKey, ...env });
    server.url = server.process.url;
    server.api = new ApiClient(server.url, apiKey);
  });
  after(async function () {
    this.timeout(30_000);
    await server.process?.stop();
    await database?.drop();
  });
  return server;
}

/** `args` with `--api-base` set to the server: the global options come before the command. */
export function against(server: CliServer, ...args: string[]): string[] {
  return ['--api-base', server.url, ...args];
}
