/**
 * `npm run dev`: the server, restarted on every change, for a designer editing the contracts and a
 * developer editing the code. A change under `openapi/` or `graphql/` regenerates the code and
 * lints the spec first: when either fails, its errors are printed in one short block and the
 * running server keeps serving the last good contract; otherwise the server restarts, so an edited
 * description shows in `/docs` on reload. A change under `src/` restarts the server. Ctrl-C (or
 * SIGTERM) stops the server, then this process.
 *
 * The server is `src/main.ts` as `npm start` runs it, with this process's environment (`PORT`,
 * `DATA_DIR`, `DATABASE_URL`, …); its output is this process's.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Changes closer together than this are one change (an editor's save writes more than once). */
const SETTLE_MS = 300;
/** How long a stopping server may take before it is killed. */
const STOP_MS = 5000;
/** How many lines of a failure the block shows: the first ones say what is wrong. */
const ERROR_LINES = 12;

const run = promisify(execFile);

/** A contract step that failed: which, and its output. */
interface Failure {
  step: string;
  output: string;
}

/** Regenerates the code from the contracts and lints the spec, as CI does; the first failure, or none. */
async function checkContracts(): Promise<Failure | undefined> {
  const steps: Array<[step: string, command: string, args: string[]]> = [
    ['code generation', process.execPath, ['scripts/generate.mjs']],
    ['spec lint', path.join(ROOT, 'node_modules', '.bin', 'spectral'), ['lint', '--fail-severity', 'warn', 'openapi/openapi.yaml']],
  ];
  for (const [step, command, args] of steps) {
    try {
      await run(command, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      return { step, output: `${stderr}\n${stdout}` };
    }
  }
  return undefined;
}

/** The one short block a failure prints: what failed, its first lines, and what still runs. */
function failureBlock({ step, output }: Failure): string {
  const lines = output
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  const shown = lines.slice(0, ERROR_LINES).map((line) => `  ${line}`);
  if (lines.length > ERROR_LINES) shown.push(`  … ${lines.length - ERROR_LINES} more lines`);
  return [`✖ dev: ${step} failed; the server keeps the last good contract`, ...shown, ''].join('\n');
}

let server: ChildProcess | undefined;

function startServer(): void {
  server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, stdio: 'inherit', env: process.env });
}

/** Stops the server by its PID (SIGTERM, then SIGKILL after `STOP_MS`) and waits for it to exit. */
async function stopServer(): Promise<void> {
  const child = server;
  server = undefined;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
  await exited;
  clearTimeout(kill);
}

/** What a batch of changes asks for: the contracts checked first, or only a restart. */
let pending: { contracts: boolean } | undefined;
let timer: NodeJS.Timeout | undefined;
/** The work under way; batches run one after another. */
let working: Promise<void> = Promise.resolve();

function changed(contracts: boolean): void {
  pending = { contracts: contracts || (pending?.contracts ?? false) };
  clearTimeout(timer);
  timer = setTimeout(() => {
    const batch = pending!;
    pending = undefined;
    working = working.then(() => apply(batch));
  }, SETTLE_MS);
}

async function apply(batch: { contracts: boolean }): Promise<void> {
  if (batch.contracts) {
    process.stderr.write('dev: a contract changed; regenerating and linting\n');
    const failure = await checkContracts();
    if (failure) {
      process.stderr.write(failureBlock(failure));
      return;
    }
  }
  process.stderr.write('dev: restarting the server\n');
  await stopServer();
  startServer();
}

/** Watches a directory of the project for files with these extensions. */
function watch(directory: string, extensions: string[], contracts: boolean): fs.FSWatcher {
  return fs.watch(path.join(ROOT, directory), { recursive: true }, (_event, file) => {
    if (file && extensions.some((extension) => file.endsWith(extension))) changed(contracts);
  });
}

const watchers = [
  watch('openapi', ['.yaml', '.yml'], true),
  watch('graphql', ['.graphql'], true),
  watch('src', ['.ts', '.js', '.html', '.css'], false),
];

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const watcher of watchers) watcher.close();
    clearTimeout(timer);
    void working.then(stopServer).then(() => process.exit(0));
  });
}

process.stderr.write('dev: watching openapi/, graphql/ and src/\n');
const initial = await checkContracts();
if (initial) process.stderr.write(failureBlock(initial));
startServer();
