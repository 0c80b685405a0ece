import { expect } from 'chai';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { SlicedRateLimiter, sliceSize, type AllowanceStore, type AllowanceTaken } from '../../src/db/rate-limit-slices.js';
import { eventually } from '../helpers/eventually.js';

/**
 * The shared store in memory, as Postgres and Redis keep it: a count per key and window, a window
 * named when it starts and ending `durationMs` later. `endWindow` ends a key's window at once.
 */
class MemoryStore implements AllowanceStore {
  readonly counts = new Map<string, { count: number; window: string; endsAt: number }>();
  takes = 0;
  inFlight = 0;
  mostInFlight = 0;
  givenBack = 0;
  failing = false;
  /** Holds every take until released (to let requests pile up behind one). */
  gate: Promise<void> | undefined;
  private windows = 0;

  async take(key: string, points: number, durationMs: number): Promise<AllowanceTaken> {
    this.takes++;
    this.inFlight++;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    try {
      await this.gate;
      await Promise.resolve();
      if (this.failing) throw new Error('store down');
      const now = Date.now();
      let entry = this.counts.get(key);
      if (!entry || entry.endsAt <= now) entry = { count: 0, window: `w${++this.windows}`, endsAt: now + durationMs };
      entry.count += points;
      this.counts.set(key, entry);
      return { count: entry.count, msLeft: entry.endsAt - now, window: entry.window };
    } finally {
      this.inFlight--;
    }
  }

  async giveBack(key: string, points: number, window: string): Promise<void> {
    if (this.failing) throw new Error('store down');
    const entry = this.counts.get(key);
    if (entry?.window !== window) return;
    entry.count -= points;
    this.givenBack += points;
  }

  async close(): Promise<void> {}

  count(key: string): number {
    return this.counts.get(`api:${key}`)?.count ?? 0;
  }

  endWindow(key: string): void {
    this.counts.delete(`api:${key}`);
  }
}

/** 100 per minute: slices of 5, and a minute is far longer than any of these tests. */
const WINDOW = { points: 100, durationSeconds: 60 };
const limiters: SlicedRateLimiter[] = [];

function limiterOver(store: AllowanceStore, window = WINDOW): SlicedRateLimiter {
  const limiter = new SlicedRateLimiter(store, window, { keyPrefix: 'api' });
  limiters.push(limiter);
  return limiter;
}

/** Consumes one point: the `RateLimiterRes` it resolved or was refused with, and which. */
async function attempt(limiter: SlicedRateLimiter, key = 'k'): Promise<{ admitted: boolean; res: RateLimiterRes }> {
  try {
    return { admitted: true, res: await limiter.consume(key) };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { admitted: false, res: rejection };
  }
}

async function admittedOf(limiter: SlicedRateLimiter, requests: number, key = 'k'): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < requests; i++) if ((await attempt(limiter, key)).admitted) admitted++;
  return admitted;
}

describe('SlicedRateLimiter (allowance taken from a shared store in slices)', () => {
  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((limiter) => limiter.close()));
  });

  it('sizes slices at 1/20 of the limit, at least 1, at most 100', () => {
    expect([3, 19, 20, 60, 100, 2000, 1_000_000].map(sliceSize)).to.deep.equal([1, 1, 1, 3, 5, 100, 100]);
  });

  it('admits exactly the limit with one store call per slice, then refuses from memory', async () => {
    const store = new MemoryStore();
    const limiter = limiterOver(store);
    expect(await admittedOf(limiter, 150)).to.equal(100);
    // 20 slices of 5; the last one left the count at the limit, so the 50 refusals asked nothing.
    expect(store.takes).to.equal(20);
    expect(store.count('k')).to.equal(100);
  });

  it('answers RateLimit-Remaining counting down by one, and the window end', async () => {
    const limiter = limiterOver(new MemoryStore());
    const remaining: number[] = [];
    for (let i = 0; i < 12; i++) {
      const { res } = await attempt(limiter);
      remaining.push(res.remainingPoints);
      expect(res.msBeforeNext).to.be.within(59_000, 60_000);
    }
    expect(remaining).to.deep.equal([99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89, 88]);
  });

  it('lets concurrent requests of a key wait for one take at a time', async () => {
    const store = new MemoryStore();
    const limiter = limiterOver(store);
    let release!: () => void;
    store.gate = new Promise((resolve) => (release = resolve));
    const pending = Array.from({ length: 50 }, () => attempt(limiter));
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.takes).to.equal(1);
    release();
    const outcomes = await Promise.all(pending);
    expect(outcomes.every((outcome) => outcome.admitted)).to.equal(true);
    expect(store.mostInFlight).to.equal(1);
    expect(store.takes).to.equal(10);
    // Each request's remaining is its own: 50 different values.
    expect(new Set(outcomes.map((outcome) => outcome.res.remainingPoints)).size).to.equal(50);
  });

  it('never admits more than the limit across limiters, and gives back what the store counted beyond it', async () => {
    const store = new MemoryStore();
    const [a, b, c] = [limiterOver(store), limiterOver(store), limiterOver(store)];
    const outcomes = await Promise.all(Array.from({ length: 300 }, (_, i) => attempt([a, b, c][i % 3])));
    expect(outcomes.filter((outcome) => outcome.admitted)).to.have.length(100);
    // The takes that found less than a slice left gave the rest back: the count is what was admitted.
    expect(store.count('k')).to.equal(100);
  });

  it('keeps the last slice to what was left, and refuses early by at most what other limiters hold', async () => {
    const store = new MemoryStore();
    const [a, b] = [limiterOver(store), limiterOver(store)];
    expect((await attempt(a)).admitted).to.equal(true); // a holds the other 4 points of its slice
    const byB = await admittedOf(b, 150);
    expect(byB).to.equal(100 - sliceSize(100));
    // a still has its 4: the key's allowance is spent only when they are used.
    expect(await admittedOf(a, 10)).to.equal(4);
    expect(store.count('k')).to.equal(100);
  });

  it('gives back a slice left idle, so that another limiter can use it', async function () {
    this.timeout(10_000);
    const store = new MemoryStore();
    const [a, b] = [limiterOver(store), limiterOver(store)];
    await attempt(a);
    expect(store.count('k')).to.equal(sliceSize(100));
    await eventually(() => expect(store.count('k')).to.equal(1), 5_000);
    expect(await admittedOf(b, 150)).to.equal(99);
  });

  it('gives back what it holds at close', async () => {
    const store = new MemoryStore();
    const limiter = new SlicedRateLimiter(store, WINDOW, { keyPrefix: 'api' });
    await attempt(limiter, 'one');
    await attempt(limiter, 'two');
    await attempt(limiter, 'two');
    await limiter.close();
    expect([store.count('one'), store.count('two')]).to.deep.equal([1, 2]);
  });

  it('drops a give-back for a window that has ended instead of crediting the next', async () => {
    const store = new MemoryStore();
    const limiter = limiterOver(store);
    await attempt(limiter);
    store.endWindow('k');
    const other = limiterOver(store);
    await attempt(other);
    await limiter.close(); // gives back 4 points of the ended window
    expect(store.count('k')).to.equal(sliceSize(100));
    expect(store.givenBack).to.equal(0);
  });

  it('takes a new slice in a new window, with a fresh RateLimit-Remaining', async () => {
    const store = new MemoryStore();
    const limiter = limiterOver(store, { points: 3, durationSeconds: 1 });
    expect(await admittedOf(limiter, 5)).to.equal(3);
    await eventually(async () => expect((await attempt(limiter)).res.remainingPoints).to.equal(2), 5_000);
  });

  it('counts alone in memory while the store fails, without asking it on every request', async () => {
    const store = new MemoryStore();
    store.failing = true;
    const limiter = limiterOver(store, { points: 10, durationSeconds: 60 });
    expect(await admittedOf(limiter, 15)).to.equal(10);
    expect(store.takes).to.equal(1);
    const refused = await attempt(limiter);
    expect(refused.admitted).to.equal(false);
    expect(refused.res.remainingPoints).to.equal(0);
  });

  it('goes back to the store once it answers again', async function () {
    this.timeout(10_000);
    const store = new MemoryStore();
    store.failing = true;
    const limiter = limiterOver(store, { points: 10, durationSeconds: 60 });
    await attempt(limiter);
    store.failing = false;
    await eventually(async () => {
      await attempt(limiter, 'later');
      expect(store.count('later')).to.be.greaterThan(0);
    }, 5_000);
  });
});
