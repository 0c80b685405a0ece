/**
 * Where the CLI's API calls go and with which key: `--api-base` (default the local dev server),
 * and the key from `--api-key`, else `PAYMENTS_API_KEY`, else the file the dev server writes
 * (`$DATA_DIR/dev-api-key`, DATA_DIR defaulting to `./data`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { createClient, type PaymentsClient } from '../../sdk/src/index.js';
import { CommandFailure, NetworkFailure, UsageError } from './failures.js';

/** The server, the key, and an SDK client for them. */
export interface Connection {
  apiBase: string;
  apiKey: string;
  client: PaymentsClient;
}

/** The server the CLI talks to when `--api-base` is not given: `npm start`'s default. */
export const DEFAULT_API_BASE = 'http://127.0.0.1:4242';

/** How to connect: the global options as given (either may be missing). */
export interface ConnectOptions {
  apiBase?: string | undefined;
  apiKey?: string | undefined;
  /** The SDK's retries after network errors, 409, 429 and 5xx; default the SDK's (2). A poller that backs off itself passes 0. */
  maxRetries?: number | undefined;
}

/** Resolves the API base and key (flag > env > key file) and builds the client; no key anywhere → {@link UsageError}. */
export async function connect(options: ConnectOptions): Promise<Connection> {
  const apiBase = checkedBase(options.apiBase ?? DEFAULT_API_BASE);
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(process.env.PAYMENTS_API_KEY) ?? (await keyFromFile());
  if (apiKey === undefined) {
    throw new UsageError(
      `no API key: pass --api-key sk_test_…, set PAYMENTS_API_KEY, or start the dev server (npm start), ` +
        `which saves its key in ${keyFilePath()}`,
    );
  }
  const retries = options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {};
  const client = createClient({ apiKey, baseUrl: apiBase, fetch: reportingFetch(apiBase), ...retries });
  return { apiBase, apiKey, client };
}

/**
 * The global fetch, its network errors turned into {@link NetworkFailure}s naming the server, and
 * an answer that is not JSON (every answer of the API is) into a {@link CommandFailure}: the SDK
 * would fail to parse it, and the likely cause is an --api-base that is not this API. The SDK's
 * transport retries whatever a fetch throws, so its retries are unchanged.
 */
function reportingFetch(apiBase: string): typeof fetch {
  return async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      // An abort is the caller's own doing (a command stopping), not the server's absence.
      if ((error as Error).name === 'AbortError') throw error;
      throw new NetworkFailure(apiBase, error);
    }
    const type = response.headers.get('Content-Type');
    if (type !== null && !/\bjson\b/i.test(type)) {
      await response.body?.cancel();
      throw new CommandFailure(`${apiBase} answered ${response.status} with ${type}, not JSON: is --api-base the payments API?`);
    }
    return response;
  };
}

/** {@link connect} with the global options of `command` (`--api-base`, `--api-key`, or PAYMENTS_API_KEY through commander). */
export function connectFor(command: Command, options: Pick<ConnectOptions, 'maxRetries'> = {}): Promise<Connection> {
  const { apiBase, apiKey } = command.optsWithGlobals<{ apiBase?: string; apiKey?: string }>();
  return connect({ apiBase, apiKey, ...options });
}

/** Where the dev server saves its key: `$DATA_DIR/dev-api-key`, as src/bootstrap.ts writes it. */
export function keyFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.DATA_DIR || './data', 'dev-api-key');
}

async function keyFromFile(): Promise<string | undefined> {
  try {
    return nonEmpty((await fs.promises.readFile(keyFilePath(), 'utf8')).trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the API key file ${keyFilePath()}: ${(error as Error).message}`);
  }
}

function checkedBase(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--api-base must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--api-base must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return value.replace(/\/+$/, '');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
