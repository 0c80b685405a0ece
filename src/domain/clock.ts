/** The one source of time, so that tests can move it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/** Unix seconds, the unit of every `created` field. */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}
