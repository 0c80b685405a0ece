import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the background thread folds the write-ahead log back into the database file. */
const CHECKPOINT_INTERVAL_MS = 200;

/**
 * The main connection's own checkpoint threshold, in pages (~40 MB): a fallback that only fires
 * if the background thread has stopped, so the log can never grow without bound.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

// Runs in its own thread with its own connection. PASSIVE checkpoints never block writers.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.filename);
parentPort.postMessage('opened');
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy: the next tick tries again */ }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints a WAL-mode SQLite file from a worker thread. With `synchronous=NORMAL` a commit
 * does not fsync; the checkpoint does, and better-sqlite3 would run it on the event loop inside
 * whichever commit crossed the threshold, stalling every request meanwhile. Durability is the
 * same either way.
 */
export function startCheckpointer(filename: string): { stop(): Promise<void> } {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { filename, driverPath, intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  worker.unref();
  let opened = false;
  worker.once('message', () => (opened = true));
  return {
    async stop() {
      // A thread that has not opened the file yet has nothing to finish: ending it spares waiting
      // for its start (tens of milliseconds, paid by every short-lived database).
      if (!opened) {
        await worker.terminate();
        return;
      }
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      // Held while stopping, so that a process with nothing else left (a CLI) waits for the thread.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
