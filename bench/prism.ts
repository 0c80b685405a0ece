/**
 * Prism (`@stoplight/prism-cli`), the spec-driven mock server, beside the real server: issue 16
 * asks for a POST at least as fast as a stateless mock answering the same request from the spec's
 * examples. It runs as its own process on 127.0.0.1, once per bench run, as quiet as it gets:
 * `-v silent` (no line per request), `--errors false` (a violation is a header, not an error
 * response), `--dynamic false` (the spec's examples, no generated data), one process (no
 * `--multiprocess`, so that its PID is the whole of it).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ServerProcess } from './processes.js';

/** Answered without credentials (`security: []` in the spec), so it tells when Prism is up. */
export const PRISM_READY_PATH = '/.well-known/jwks.json';
/** Prism reads and dereferences the whole spec before it listens: seconds, not milliseconds. */
export const PRISM_START_TIMEOUT_MS = 120_000;

/** Starts a process and registers its stop: run.ts's `startNode`. */
export type StartNode = (
  name: string,
  args: string[] | ((port: number) => string[]),
  env: Record<string, string>,
  readyPath: string,
  timeoutMs?: number,
) => Promise<ServerProcess>;

/** Starts Prism on `openapi/openapi.yaml` of `root`, on a free port. */
export function startPrism(root: string, startNode: StartNode): Promise<ServerProcess> {
  const require = createRequire(path.join(root, 'package.json'));
  const manifest = require.resolve('@stoplight/prism-cli/package.json');
  const { bin } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { bin: { prism: string } };
  const cli = path.join(path.dirname(manifest), bin.prism);
  const spec = path.join(root, 'openapi', 'openapi.yaml');
  return startNode(
    'Prism mock server',
    (port) => [
      cli,
      'mock',
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-v',
      'silent',
      '--errors',
      'false',
      '--dynamic',
      'false',
      spec,
    ],
    {},
    PRISM_READY_PATH,
    PRISM_START_TIMEOUT_MS,
  );
}
