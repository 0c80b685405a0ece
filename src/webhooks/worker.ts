/**
 * The webhook worker. Guarantees:
 * - every delivery in the outbox is attempted until it succeeds or its schedule is exhausted;
 * - a delivery is leased before it is attempted, so any number of workers (threads, processes,
 *   machines) never send the same attempt at once;
 * - a worker that dies loses nothing: its leases expire and the deliveries are due again
 *   (at least once, never lost);
 * - stopping claims nothing more and finishes the attempts in flight (they end within the send
 *   timeout), so no lease is left behind;
 * - a database that does not answer stops nothing: the loop tries again every second, and goes on
 *   by itself once it answers (deliveries it had leased are due again when their leases run out).
 */
import { randomBase62 } from '../domain/ids.js';
import { claimDueDeliveries, loadDeliveryTargets, type DeliveryTargets } from '../resources/webhook-deliveries/webhook-deliveries.repo.js';
import { dispatchDelivery, type DispatchDeps } from './dispatch.js';
import { createOutageLog } from '../logging/outage-log.js';
import { batchTransactions } from './transaction-batcher.js';

export interface WorkerOptions {
  /** HTTP attempts in flight at once (64; the server passes `WEBHOOK_CONCURRENCY`, 128 by default). */
  concurrency?: number;
  /**
   * Attempts whose response has arrived but whose outcome is not yet recorded, at most. Their
   * slots are free for new requests meanwhile, so the database's latency does not idle the sender.
   */
  maxRecording?: number;
  /**
   * How often to look for due deliveries when there were none (50 ms); with wake-ups on every
   * commit (`wake()`), only a safety net and the clock for retries coming due.
   */
  pollIntervalMs?: number;
  /** How long a claimed delivery stays leased; longer than the send timeout. */
  leaseMs?: number;
}

export interface WebhookWorker {
  /**
   * Looks for due deliveries now instead of at the next poll: call it when deliveries may have been
   * committed. Calls while it is busy make it look once more when it next would pause.
   */
  wake(): void;
  /** Milliseconds since the loop last looked for due deliveries, or was busy with attempts (readiness). */
  msSinceLoopRan(): number;
  stop(): Promise<void>;
}

export function startWebhookWorker(workerDeps: DispatchDeps, options: WorkerOptions = {}): WebhookWorker {
  // Attempts that end together record their outcomes in one transaction.
  const deps: DispatchDeps = { ...workerDeps, outcomes: workerDeps.outcomes ?? batchTransactions(workerDeps.db) };
  const concurrency = options.concurrency ?? 64;
  const maxRecording = options.maxRecording ?? concurrency * 4;
  const pollIntervalMs = options.pollIntervalMs ?? 50;
  const leaseMs = options.leaseMs ?? 60_000;
  const owner = `wrk_${randomBase62(16)}`;
  /** Attempts whose request is under way, by delivery id: they hold the slots. */
  const inFlight = new Map<string, Promise<void>>();
  /** Every attempt not yet recorded, by delivery id (stop waits for them). */
  const unrecorded = new Map<string, Promise<void>>();
  let running = true;
  let loopRanAt = performance.now();
  // While the database is away every claim fails: a warning at first, then once a minute.
  const claims = createOutageLog(deps.logger, 'claiming webhook deliveries');
  const recording = createOutageLog(deps.logger, 'recording webhook attempts');
  let wakeUp: (() => void) | undefined;
  /** A wake-up came while the loop was not pausing: the next pause is skipped. */
  let woken = false;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        wakeUp = undefined;
        clearTimeout(timer);
        resolve();
      }
      wakeUp = done;
    });

  async function loop(): Promise<void> {
    while (running) {
      const capacity = concurrency - inFlight.size;
      // Claim in batches: one claim statement per half-pool of free slots, not one per slot.
      if (capacity < concurrency / 2) {
        await Promise.race(inFlight.values());
        loopRanAt = performance.now();
        continue;
      }
      if (unrecorded.size - inFlight.size >= maxRecording) {
        await Promise.race(unrecorded.values());
        loopRanAt = performance.now();
        continue;
      }
      let claimed: Awaited<ReturnType<typeof claimDueDeliveries>> = [];
      let targets: DeliveryTargets;
      try {
        const nowMs = deps.clock.nowMs();
        claimed = await claimDueDeliveries(deps.db, { owner, nowMs, leaseUntil: nowMs + leaseMs, limit: capacity });
        targets = await loadDeliveryTargets(deps.db, claimed);
      } catch (error) {
        // Leased but not sent: the leases run out and the deliveries are claimed again.
        claims.failed(error);
        await pause(1000);
        continue;
      }
      claims.succeeded();
      loopRanAt = performance.now();
      for (const delivery of claimed) {
        let requestEnded!: () => void;
        const request = new Promise<void>((resolve) => (requestEnded = resolve)).finally(() => inFlight.delete(delivery.id));
        // An outcome that could not be recorded is attempted again once its lease runs out.
        const attempt = dispatchDelivery(deps, delivery, owner, targets, requestEnded)
          .then(
            () => recording.succeeded(),
            (error: unknown) => recording.failed(error),
          )
          .finally(() => {
            requestEnded();
            unrecorded.delete(delivery.id);
          });
        inFlight.set(delivery.id, request);
        unrecorded.set(delivery.id, attempt);
      }
      if (claimed.length < capacity && running && !woken) await pause(pollIntervalMs);
      woken = false;
    }
  }

  const looping = loop();
  return {
    wake() {
      if (wakeUp) wakeUp();
      else woken = true;
    },
    msSinceLoopRan: () => performance.now() - loopRanAt,
    async stop() {
      running = false;
      wakeUp?.();
      await looping;
      // Attempts end within the send timeout; their outcomes are recorded before we return.
      await Promise.all(unrecorded.values());
    },
  };
}
