/**
 * `npm run dev`: the server, restarted on every change, for a designer editing the contracts and a
 * developer editing the code. A change under `openapi/` or `graphql/` is checked first (the
 * contracts parse, the code regenerates, the spec lints: scripts/dev-checks.ts): when a check
 * fails, its errors are printed in one short block and the running server keeps serving the last
 * good contract; otherwise the server restarts on the new one, so an edited description shows in
 * `/docs` on reload. A change under `src/` restarts the server, on the last good contract even
 * while the file being edited is broken. Ctrl-C (or SIGTERM) stops the server, then this process.
 *
 * The folders are watched with chokidar, not single files: an editor that saves by writing a new
 * file and renaming it over the old one (vim, `sed -i`, most IDEs), or by deleting and creating
 * it, replaces the file that a watch on the file itself would stay attached to.
 *
 * The server is `src/main.ts` as `npm start` runs it, with this process's environment (`PORT`,
 * `DATA_DIR`, `DATABASE_URL`, …) and `CONTRACT_DIR` naming the copy of the last good contracts;
 * its output is this process's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { watch } from 'chokidar';
import {
  CONTRACTS,
  checkContracts,
  failureBlock,
  movedSince,
  stampOf,
  type CheckResult,
} from './dev-checks.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Changes closer together than this are one change (an editor's save writes more than once). */
const SETTLE_MS = 200;
/** How long a contract may stay absent or moving before it is reported as unreadable (a save takes milliseconds). */
const UNSETTLED_MS = 3000;
/** How long a stopping server may take before it is killed. */
const STOP_MS = 5000;
/** What is watched, and which files in it count: folder → [extensions, whether they are contracts]. */
const WATCHED: Record<string, [extensions: string[], contracts: boolean]> = {
  openapi: [['.yaml', '.yml'], true],
  graphql: [['.graphql'], true],
  src: [['.ts', '.js', '.html', '.css'], false],
};

/** The copy of the last contracts that passed the checks: the server reads its contracts from here. */
const lastGood = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-api-dev-'));
let hasGoodContract = false;

function keepAsLastGood(contents: ReadonlyMap<string, string>): void {
  for (const [file, text] of contents) {
    fs.mkdirSync(path.dirname(path.join(lastGood, file)), { recursive: true });
    fs.writeFileSync(path.join(lastGood, file), text);
  }
  hasGoodContract = true;
}

let server: ChildProcess | undefined;

function startServer(): void {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, CONTRACT_DIR: lastGood },
  });
  child.once('exit', (code, signal) => {
    if (server === child)
      process.stderr.write(
        `dev: the server exited (${signal ?? `code ${code}`}); waiting for a change\n`,
      );
  });
  server = child;
  process.stderr.write(`dev: server process ${child.pid} started\n`);
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

/** A batch of changes: the files, and whether contracts or code are among them. */
interface Batch {
  files: Set<string>;
  contracts: boolean;
  code: boolean;
}

const merge = (a: Batch | undefined, b: Batch): Batch => ({
  files: new Set([...(a?.files ?? []), ...b.files]),
  contracts: (a?.contracts ?? false) || b.contracts,
  code: (a?.code ?? false) || b.code,
});

/** Changes still settling, and settled ones waiting for the work under way. */
let settling: Batch | undefined;
let ready: Batch | undefined;
let timer: NodeJS.Timeout | undefined;
/** The batch being worked on, and how to abandon its checks when a newer change arrives. */
let current: { batch: Batch; abort: AbortController } | undefined;
let stopping = false;

function changed(file: string, contracts: boolean): void {
  if (contracts) contractStamps.set(file, stampOf(ROOT, file));
  settling = merge(settling, { files: new Set([file]), contracts, code: !contracts });
  clearTimeout(timer);
  timer = setTimeout(settle, SETTLE_MS);
}

function settle(): void {
  const batch = settling!;
  settling = undefined;
  process.stderr.write(`dev: changed ${[...batch.files].sort().join(', ')}\n`);
  ready = merge(ready, batch);
  // A newer change overtakes contract checks under way: they would only say how the old text was.
  if (current && batch.contracts) current.abort.abort();
  void work();
}

/** Works through settled batches one at a time; a batch whose checks were abandoned goes with the next. */
async function work(): Promise<void> {
  if (current || stopping) return;
  while (ready && !stopping) {
    const batch = ready;
    ready = undefined;
    current = { batch, abort: new AbortController() };
    const done = await apply(batch, current.abort.signal);
    if (!done) ready = merge(batch, ready ?? { files: new Set(), contracts: false, code: false });
    current = undefined;
  }
}

/** Checks the contracts when they changed, then restarts the server; false when abandoned or stale. */
async function apply(batch: Batch, signal: AbortSignal): Promise<boolean> {
  if (batch.contracts) {
    process.stderr.write('dev: checking the contracts (parse, code generation, spec lint)\n');
    const result = await checkOnceSaved(signal);
    if ('aborted' in result) return false;
    if ('failure' in result) {
      // A failure is told only when the contracts still read as they were checked, a moment later:
      // a text caught mid-save (a truncated file, a half-written one) is checked again, not reported.
      if (!(await stillAsChecked(result.stamps, signal))) return false;
      process.stderr.write(failureBlock(result.failure));
      // Only a change of code restarts the server now, on the last good contract.
      if (hasGoodContract && !batch.code) return true;
    } else {
      // Passing checks on a text that has been saved over since are checked again on the new one.
      if (!(await stillAsChecked(result.stamps, signal))) return false;
      keepAsLastGood(result.passed);
    }
  }
  if (!hasGoodContract) {
    process.stderr.write(
      'dev: no contract has passed the checks yet; the server starts once one does\n',
    );
    return true;
  }
  process.stderr.write(server ? 'dev: restarting the server\n' : 'dev: starting the server\n');
  await stopServer();
  if (!stopping) startServer();
  return true;
}

/**
 * Checks the contracts once no save is under way: while a file is absent (deleted, to be created
 * again) or moving as it is read, waits and reads again. A file absent for `UNSETTLED_MS` is a
 * failure to report.
 */
async function checkOnceSaved(
  signal: AbortSignal,
): Promise<Exclude<CheckResult, { unsettled: string }>> {
  for (let waited = 0; ; waited += SETTLE_MS) {
    const result = await checkContracts(ROOT, signal);
    if (!('unsettled' in result)) return result;
    if (waited >= UNSETTLED_MS) {
      const stamps = new Map(CONTRACTS.map((file) => [file, stampOf(ROOT, file)]));
      return {
        failure: {
          step: `${result.unsettled} cannot be read`,
          output: `${result.unsettled} is absent or keeps changing.`,
        },
        stamps,
      };
    }
    if (!(await pause(signal))) return { aborted: true };
  }
}

/** Whether the contracts still read as they were checked after `SETTLE_MS`; false when abandoned. */
async function stillAsChecked(
  stamps: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<boolean> {
  return (await pause(signal)) && !movedSince(ROOT, stamps);
}

/** Waits `SETTLE_MS`; false when a newer change abandoned the work first. */
async function pause(signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(SETTLE_MS, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** What each contract file looked like when last seen changed. */
const contractStamps = new Map<string, string>(
  CONTRACTS.map((file) => [file, stampOf(ROOT, file)]),
);

/**
 * A safety net under the watcher for the two files that matter most: once a second, a contract
 * whose inode, size or modification time moved without an event (a file system or a save pattern
 * that the watcher missed) is taken as changed. The loop never stays deaf to the contract.
 */
const CONTRACT_CHECK_MS = 1000;
const contractCheck = setInterval(() => {
  for (const file of CONTRACTS) {
    const stamp = stampOf(ROOT, file);
    // An absent file is a save under way (deleted, to be created again): its creation is the change.
    if (stamp !== 'absent' && stamp !== contractStamps.get(file)) changed(file, true);
  }
}, CONTRACT_CHECK_MS);

const watcher = watch(Object.keys(WATCHED), { cwd: ROOT, ignoreInitial: true });
watcher.on('all', (event, file) => {
  if (event === 'addDir' || event === 'unlinkDir') return;
  const [extensions, contracts] = WATCHED[file.split(path.sep)[0]] ?? [[], false];
  if (extensions.some((extension) => file.endsWith(extension))) changed(file, contracts);
});
watcher.on('error', (error) => process.stderr.write(`dev: watching failed: ${String(error)}\n`));

// Should this process fail, its server goes with it rather than hold the port.
process.once('exit', () => {
  server?.kill('SIGTERM');
  fs.rmSync(lastGood, { recursive: true, force: true });
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopping = true;
    clearTimeout(timer);
    clearInterval(contractCheck);
    current?.abort.abort();
    void watcher
      .close()
      .then(() => stopServer())
      .then(() => process.exit(0));
  });
}

await new Promise<void>((resolve) => watcher.once('ready', resolve));
process.stderr.write('dev: watching openapi/, graphql/ and src/\n');
ready = { files: new Set(), contracts: true, code: false };
void work();
