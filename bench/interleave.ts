/**
 * The bench's one way to measure a scenario: right after a run of its baseline (a bare Express
 * route), so that a noisy machine slows both, and its ratio is read against that run.
 */
import { measure, type LoadSettings, type Measurement, type Scenario } from './load.js';
import type { Row } from './report.js';

/** A bare route to compare with: where it listens, the request and the load. */
export interface Baseline {
  url: string;
  scenario: Scenario;
  settings: LoadSettings;
}

/** One scenario to measure after a baseline run; `settings` default to the baseline's. */
export interface Step {
  url: string;
  scenario: Scenario;
  settings?: LoadSettings;
  /** Runs between the previous run and this one (e.g. to read the state the run must not change). */
  beforeRun?: () => Promise<void>;
}

/** Measures scenarios against baselines and keeps every row and baseline run of a pass. */
export interface Interleaver {
  /** Every measured row, in order. */
  rows: Row[];
  /** Every baseline run, in order (their names tell the baselines apart). */
  baselineRuns: Measurement[];
  /** One baseline run, then the step: its row. */
  against(baseline: Baseline, step: Step): Promise<Row>;
  /** One baseline run, then each step back to back, every row against that one run. */
  againstOne(baseline: Baseline, steps: Step[]): Promise<Row[]>;
}

/** An interleaver whose progress lines start with `[label]`. */
export function createInterleaver(label: string): Interleaver {
  const rows: Row[] = [];
  const baselineRuns: Measurement[] = [];
  const againstOne = async (baseline: Baseline, steps: Step[]): Promise<Row[]> => {
    console.error(`[${label}] ${steps.map((step) => step.scenario.name).join(', then ')}`);
    const base = await measure(baseline.url, baseline.scenario, baseline.settings);
    baselineRuns.push(base);
    const measured: Row[] = [];
    for (const step of steps) {
      await step.beforeRun?.();
      const run = await measure(step.url, step.scenario, step.settings ?? baseline.settings);
      measured.push({
        ...run,
        baselineRequestsPerSecond: base.requestsPerSecond,
        ratioToBaseline: run.requestsPerSecond / base.requestsPerSecond,
      });
    }
    rows.push(...measured);
    return measured;
  };
  return {
    rows,
    baselineRuns,
    againstOne,
    against: async (baseline, step) => (await againstOne(baseline, [step]))[0],
  };
}

/** Sets a row's target: `value` must be at least `minimum`. */
export function target(row: Row, text: string, value: number, minimum: number): void {
  row.target = { text, value: value.toFixed(2), met: value >= minimum };
}

/** A target met when `value` is strictly above `bound` ("ahead of"). */
export function targetAbove(row: Row, text: string, value: number, bound: number): void {
  row.target = { text, value: value.toFixed(2), met: value > bound };
}

/** The mean of a baseline's runs, as a row named after it. */
export function meanOf(name: string, runs: Measurement[]): Row {
  const mean = (pick: (m: Measurement) => number) =>
    runs.reduce((sum, m) => sum + pick(m), 0) / runs.length;
  return {
    name: `${name}, mean`,
    requestsPerSecond: mean((m) => m.requestsPerSecond),
    p50Ms: mean((m) => m.p50Ms),
    p99Ms: mean((m) => m.p99Ms),
    requests: mean((m) => m.requests),
    failures: runs.reduce((sum, m) => sum + m.failures, 0),
    statusCodes: {},
    ratioToBaseline: 1,
  };
}
