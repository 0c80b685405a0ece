import type { Measurement } from './load.js';

/** A measured scenario, next to the baseline run made just before it, and its target if any. */
export interface Row extends Measurement {
  /** Requests per second of the baseline run that preceded this one (undefined for the baseline row). */
  baselineRequestsPerSecond?: number;
  ratioToBaseline: number;
  target?: Target;
}

/** A goal, e.g. "≥ 0.50 × baseline", with the value reached and whether it was met. */
export interface Target {
  text: string;
  value: string;
  met: boolean;
}

/** The result of one pass over one database. */
export interface Pass {
  database: 'sqlite' | 'postgres';
  rows: Row[];
  /** Every baseline run, in order, of both bare routes (their names tell them apart; the first rows show their means). */
  baselineRuns: Measurement[];
  notes: string[];
}

const fixed = (value: number, digits: number) => value.toFixed(digits);

/** Renders a pass as an aligned text table, with its notes below. */
export function formatPass(pass: Pass): string {
  const header = [
    'name',
    'req/s',
    'p50 ms',
    'p99 ms',
    'failed',
    'base req/s',
    '× base',
    'target',
    'reached',
    'result',
  ];
  const lines = pass.rows.map((row) => [
    row.name,
    fixed(row.requestsPerSecond, 0),
    fixed(row.p50Ms, 1),
    fixed(row.p99Ms, 1),
    String(row.failures),
    row.baselineRequestsPerSecond === undefined ? '' : fixed(row.baselineRequestsPerSecond, 0),
    fixed(row.ratioToBaseline, 2),
    row.target?.text ?? '',
    row.target?.value ?? '',
    row.target ? (row.target.met ? 'PASS' : 'FAIL') : '',
  ]);
  const table = [header, ...lines];
  const widths = header.map((_, column) => Math.max(...table.map((cells) => cells[column].length)));
  const render = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 || column >= 7 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
      )
      .join('  ')
      .trimEnd();
  return [
    `== ${pass.database} ==`,
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...lines.map(render),
    ...pass.notes.map((note) => `  ${note}`),
  ].join('\n');
}
