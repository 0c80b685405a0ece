/**
 * Allowance in slices: a rate limit shared by every API process (its counts in Postgres or Redis)
 * that costs one store round trip per slice of requests, not one per request.
 *
 * A process takes a key's allowance from the shared store a slice at a time (`sliceSize`: 1/20 of
 * the limit, at least 1, at most 100) and serves that many requests of the key from memory. A
 * slice belongs to the store's window it was taken in and ends with it.
 *
 * Guarantees, with P processes sharing the store and S the slice size:
 * - **Never more than the limit** in a window while the store answers. Taking a slice is one
 *   atomic increment of the key's count; the process keeps only what the count had left under the
 *   limit (the last slice is what was left) and gives the rest back at once.
 * - **Early refusals**: a request may be refused while at most (P − 1) × S of its key's allowance
 *   for the window is unused, held in other processes' slices or on its way back to the store.
 *   With one process, nothing is refused early. A slice left idle (no request of its key for
 *   `idleMs`: a quarter of the window, at most a second) goes back to the store, as every slice does
 *   at close, so that the other processes can use it.
 * - **Giving back names its window**: points that reach the store after their window ended are
 *   dropped, never credited to the next window.
 * - Concurrent requests of a key in one process wait for one request for its next slice.
 * - Once the store has nothing left for a key, the process refuses the key from memory until the
 *   window ends.
 * - `RateLimit-Remaining` (`remainingPoints`) is what the store had left at this process's last
 *   slice plus what is left of the slice here. Within a window it never rises for requests served
 *   by one process; a client spread over several processes may see one answer up to (P − 1) × S
 *   above another. `RateLimit-Reset` (`msBeforeNext`) counts down to the store's window end.
 * - **Insurance**: if the store fails, each process counts alone in memory (the full limit per
 *   process) and tries the store again after a second. A store failure never fails a request.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../logging/logger.js';
import type { RateLimitWindow } from './rate-limit-store.js';

/** The answer to one atomic increment of a key's count in the shared store. */
export interface AllowanceTaken {
  /** The key's count in its window, this increment included. */
  count: number;
  /** Milliseconds until the window ends, by the store's clock. */
  msLeft: number;
  /** Names the window, for giving back: a give-back for a window that has ended does nothing. */
  window: string;
}

/** A count per key and window that every process sees: `rate_limits` on Postgres, or Redis. */
export interface AllowanceStore {
  /** Adds `points` to `key`'s count, first starting a window of `durationMs` if none is running. */
  take(key: string, points: number, durationMs: number): Promise<AllowanceTaken>;
  /** Subtracts `points` from `key`'s count if its window is still `window`; otherwise does nothing. */
  giveBack(key: string, points: number, window: string): Promise<void>;
  close(): Promise<void>;
}

const SLICES_PER_WINDOW = 20;
const MAX_SLICE = 100;
const MAX_IDLE_MS = 1000;
/** After a store failure, how long requests are counted in memory before the store is tried again. */
const STORE_RETRY_MS = 1000;

/** Points a process takes from the store at once: 1/20 of the limit, at least 1, at most 100. */
export function sliceSize(points: number): number {
  return Math.max(1, Math.min(MAX_SLICE, Math.floor(points / SLICES_PER_WINDOW)));
}

/** One key's slice in this process. */
interface Slice {
  /** The store's window it was taken in; undefined before the first take. */
  window: string | undefined;
  /** When the window ends by this clock: from when the take was sent, so never after the store's end. */
  endsAt: number;
  /** Points of the slice not yet used here. */
  left: number;
  /** What the store had left for the key after this process's last take. */
  storeLeft: number;
  /** The last `remainingPoints` answered in this window (it never rises). */
  shown: number;
  /** The store had nothing left for this window: refuse from memory once `left` is used. */
  spent: boolean;
  usedAt: number;
  /** The take in flight, which every request of the key waits for; resolves false if the store failed. */
  taking: Promise<boolean> | undefined;
}

/** What `SlicedRateLimiter` needs besides its store and window. */
export interface SlicedRateLimiterOptions {
  /** Keeps limiters apart in one store (`api`: requests per credential). */
  keyPrefix: string;
  /** Where store failures and recoveries are reported (once each, not per request). */
  logger?: Logger;
}

/** A limiter over an `AllowanceStore` with the guarantees of this module's header; `close` gives back what it holds. */
export class SlicedRateLimiter {
  readonly points: number;
  /** Seconds per window. */
  readonly duration: number;
  /** Points taken from the store at once. */
  readonly slice: number;
  /** How long a slice may go unused before it is given back. */
  readonly idleMs: number;
  private readonly durationMs: number;
  private readonly slices = new Map<string, Slice>();
  private readonly insurance: RateLimiterMemory;
  /** 0 while the store answers; after a failure, until when requests are counted in memory. */
  private storeDownUntil = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly store: AllowanceStore,
    window: RateLimitWindow,
    private readonly options: SlicedRateLimiterOptions,
  ) {
    this.points = window.points;
    this.duration = window.durationSeconds;
    this.durationMs = window.durationSeconds * 1000;
    this.slice = sliceSize(window.points);
    this.idleMs = Math.min(MAX_IDLE_MS, this.durationMs / 4);
    this.insurance = new RateLimiterMemory({ keyPrefix: options.keyPrefix, points: window.points, duration: window.durationSeconds });
    this.sweeper = setInterval(() => this.sweep(), this.idleMs / 2);
    this.sweeper.unref();
  }

  /**
   * Counts `points` requests of `key`: resolves with what is left, or rejects with a
   * `RateLimiterRes` (nothing left) as rate-limiter-flexible's limiters do. Never rejects with an error.
   */
  async consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    const id = `${this.options.keyPrefix}:${key}`;
    for (;;) {
      const now = Date.now();
      const slice = this.current(id, now);
      if (slice.left >= points) return this.serve(slice, points, now);
      if (slice.spent) throw this.refusal(slice, now);
      if (now < this.storeDownUntil) return this.insurance.consume(key, points);
      slice.taking ??= this.takeSlice(id, slice, points).finally(() => (slice.taking = undefined));
      if (!(await slice.taking)) return this.insurance.consume(key, points);
      // Another request of the key may have used the new slice meanwhile: look again.
    }
  }

  /** Gives back every slice held (waiting for takes in flight), then closes the store. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.slices.values()].map((slice) => slice.taking));
    const now = Date.now();
    const held = [...this.slices].filter(([, slice]) => slice.left > 0 && slice.endsAt > now);
    await Promise.all(held.map(([id, slice]) => this.release(id, slice)));
    await this.store.close();
  }

  /** The key's slice; a fresh one if it has none or its window has ended. */
  private current(id: string, now: number): Slice {
    let slice = this.slices.get(id);
    if (!slice || (slice.endsAt <= now && !slice.taking)) {
      slice = { window: undefined, endsAt: 0, left: 0, storeLeft: 0, shown: this.points, spent: false, usedAt: now, taking: undefined };
      this.slices.set(id, slice);
    }
    return slice;
  }

  private serve(slice: Slice, points: number, now: number): RateLimiterRes {
    slice.left -= points;
    slice.usedAt = now;
    slice.shown = Math.max(0, Math.min(slice.shown - points, slice.storeLeft + slice.left));
    return new RateLimiterRes(slice.shown, slice.endsAt - now, this.points - slice.shown, false);
  }

  private refusal(slice: Slice, now: number): RateLimiterRes {
    slice.shown = 0;
    return new RateLimiterRes(0, Math.max(0, slice.endsAt - now), this.points, false);
  }

  /** Takes the key's next slice into `slice`; false if the store failed. */
  private async takeSlice(id: string, slice: Slice, points: number): Promise<boolean> {
    const want = Math.max(this.slice, points);
    const sentAt = Date.now();
    let taken: AllowanceTaken;
    try {
      taken = await this.store.take(id, want, this.durationMs);
    } catch (error) {
      this.storeFailed(error);
      return false;
    }
    this.storeAnswered();
    // Before this take the count was `count − want`: the store had `points − (count − want)` left.
    const granted = Math.min(want, Math.max(0, this.points - (taken.count - want)));
    // What the store counted beyond the limit is given back, or it would refuse others early.
    if (granted < want) void this.giveBack(id, want - granted, taken.window);
    if (slice.window !== taken.window) {
      // A new window: whatever was left of the last one ended with it.
      Object.assign(slice, { window: taken.window, left: 0, shown: this.points });
    }
    slice.endsAt = sentAt + taken.msLeft;
    slice.left += granted;
    slice.storeLeft = Math.max(0, this.points - taken.count);
    slice.spent = taken.count >= this.points;
    slice.usedAt = Date.now();
    return true;
  }

  /** Drops slices whose window has ended, and gives back those left idle while their window still runs. */
  private sweep(): void {
    const now = Date.now();
    for (const [id, slice] of this.slices) {
      if (slice.taking) continue;
      if (slice.endsAt <= now) this.slices.delete(id);
      else if (slice.left > 0 && now - slice.usedAt >= this.idleMs && slice.endsAt - now > this.idleMs) void this.release(id, slice);
    }
  }

  /** Gives back what is left of `slice`: the store has those points again, so the key is no longer spent here. */
  private release(id: string, slice: Slice): Promise<void> {
    const points = slice.left;
    slice.left = 0;
    slice.spent = false;
    return this.giveBack(id, points, slice.window!);
  }

  private giveBack(id: string, points: number, window: string): Promise<void> {
    return this.store.giveBack(id, points, window).catch((error: unknown) => this.storeFailed(error));
  }

  private storeFailed(error: unknown): void {
    if (this.storeDownUntil === 0) {
      this.options.logger?.warn({ err: error }, 'rate-limit store failed: this process counts requests alone in memory until it answers');
    }
    this.storeDownUntil = Date.now() + STORE_RETRY_MS;
  }

  private storeAnswered(): void {
    if (this.storeDownUntil === 0) return;
    this.storeDownUntil = 0;
    this.options.logger?.info('rate-limit store answers again: requests are counted in it');
  }
}
