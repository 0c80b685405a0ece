import { expect } from 'chai';
import { attemptOutcomeOf, classifyAttempt, type AttemptVerdict } from '../../src/webhooks/classify-attempt.js';
import type { SendResult } from '../../src/webhooks/sender.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const SCHEDULE = [5, 60, 300];
/** No jitter: the middle of the ±20% range, so each delay is the schedule's own. */
const NO_JITTER = () => 0.5;

type Result = Pick<SendResult, 'status' | 'retryAfter' | 'error'>;

describe('classifyAttempt', () => {
  const cases: Array<{ title: string; result: Result; attempts: number; verdict: AttemptVerdict }> = [
    { title: '200', result: { status: 200 }, attempts: 1, verdict: { kind: 'succeeded', responseStatus: 200, error: null } },
    { title: '204', result: { status: 204 }, attempts: 3, verdict: { kind: 'succeeded', responseStatus: 204, error: null } },
    {
      title: 'a success after the schedule ran out (a manual retry)',
      result: { status: 299 },
      attempts: 9,
      verdict: { kind: 'succeeded', responseStatus: 299, error: null },
    },
    {
      title: 'a redirect (never followed)',
      result: { status: 301 },
      attempts: 1,
      verdict: { kind: 'retry', delayMs: 5_000, responseStatus: 301, error: 'HTTP 301' },
    },
    {
      title: '500, first attempt',
      result: { status: 500 },
      attempts: 1,
      verdict: { kind: 'retry', delayMs: 5_000, responseStatus: 500, error: 'HTTP 500' },
    },
    {
      title: '500, third attempt',
      result: { status: 500 },
      attempts: 3,
      verdict: { kind: 'retry', delayMs: 300_000, responseStatus: 500, error: 'HTTP 500' },
    },
    {
      title: '500, once the schedule is exhausted',
      result: { status: 500 },
      attempts: 4,
      verdict: { kind: 'give_up', responseStatus: 500, error: 'HTTP 500' },
    },
    {
      title: 'a timeout',
      result: { error: 'timed out after 15000 ms' },
      attempts: 2,
      verdict: { kind: 'retry', delayMs: 60_000, responseStatus: null, error: 'timed out after 15000 ms' },
    },
    {
      title: 'a refused connection, once the schedule is exhausted',
      result: { error: 'connect ECONNREFUSED 127.0.0.1:1' },
      attempts: 4,
      verdict: { kind: 'give_up', responseStatus: null, error: 'connect ECONNREFUSED 127.0.0.1:1' },
    },
    {
      title: '410 Gone, with retries left',
      result: { status: 410 },
      attempts: 1,
      verdict: { kind: 'disable_endpoint', responseStatus: 410, error: 'HTTP 410' },
    },
    {
      title: '410 Gone, even with a Retry-After',
      result: { status: 410, retryAfter: '60' },
      attempts: 2,
      verdict: { kind: 'disable_endpoint', responseStatus: 410, error: 'HTTP 410' },
    },
    {
      title: 'a Retry-After in seconds, longer than the schedule',
      result: { status: 503, retryAfter: '120' },
      attempts: 1,
      verdict: { kind: 'retry', delayMs: 120_000, responseStatus: 503, error: 'HTTP 503' },
    },
    {
      title: 'a Retry-After shorter than the schedule (the schedule wins)',
      result: { status: 503, retryAfter: '1' },
      attempts: 2,
      verdict: { kind: 'retry', delayMs: 60_000, responseStatus: 503, error: 'HTTP 503' },
    },
    {
      title: 'a Retry-After as an HTTP date',
      result: { status: 429, retryAfter: new Date(NOW + 600_000).toUTCString() },
      attempts: 1,
      verdict: { kind: 'retry', delayMs: 600_000, responseStatus: 429, error: 'HTTP 429' },
    },
    {
      title: 'a Retry-After beyond a day (cut to a day)',
      result: { status: 503, retryAfter: '172800' },
      attempts: 1,
      verdict: { kind: 'retry', delayMs: 86_400_000, responseStatus: 503, error: 'HTTP 503' },
    },
    {
      title: 'a Retry-After that is neither seconds nor a date (ignored)',
      result: { status: 503, retryAfter: 'soon' },
      attempts: 1,
      verdict: { kind: 'retry', delayMs: 5_000, responseStatus: 503, error: 'HTTP 503' },
    },
    {
      title: 'a Retry-After once the schedule is exhausted (no further attempt)',
      result: { status: 503, retryAfter: '30' },
      attempts: 4,
      verdict: { kind: 'give_up', responseStatus: 503, error: 'HTTP 503' },
    },
  ];
  for (const { title, result, attempts, verdict } of cases) {
    it(`${title} → ${verdict.kind}`, () => {
      expect(classifyAttempt(result, { attempts, scheduleSeconds: SCHEDULE, nowMs: NOW, random: NO_JITTER })).to.deep.equal(verdict);
    });
  }

  it('spreads a retry by ±20% around the schedule', () => {
    const delay = (random: number) => {
      const verdict = classifyAttempt({ status: 500 }, { attempts: 2, scheduleSeconds: SCHEDULE, nowMs: NOW, random: () => random });
      return verdict.kind === 'retry' ? verdict.delayMs : undefined;
    };
    expect([delay(0), delay(1)]).to.deep.equal([48_000, 72_000]);
  });
});

describe('attemptOutcomeOf', () => {
  const cases: Array<[Result, string]> = [
    [{ status: 200 }, 'succeeded'],
    [{ status: 299 }, 'succeeded'],
    [{ status: 302 }, 'failed'],
    [{ status: 410 }, 'failed'],
    [{ status: 500 }, 'failed'],
    [{ error: 'timed out after 15000 ms' }, 'no_response'],
  ];
  for (const [result, outcome] of cases) {
    it(`${result.status ?? result.error} → ${outcome}`, () => expect(attemptOutcomeOf(result)).to.equal(outcome));
  }
});
