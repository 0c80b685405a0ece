/**
 * The write as issue 16 frames it: `POST /v1/charges` with a JSON body and a fresh
 * `Idempotency-Key` per request, 16 connections, against a bare Express POST route that parses the
 * same body (a write compared with a bare write), and Prism answering the same request from the
 * spec's examples, each right after its own run of the bare POST route.
 */
import { randomUUID } from 'node:crypto';
import { targetAbove, target, type Baseline, type Interleaver } from './interleave.js';
import { measure, type LoadSettings, type Scenario } from './load.js';
import type { Row } from './report.js';
import type { ServerProcess } from './processes.js';

/** The load for the write. */
export const JSON_POST_CONNECTIONS = 16;
const JSON_BODY = JSON.stringify({ amount: 2000, currency: 'usd', source: 'tok_visa' });

/** The POST, as sent to the server, the bare route and Prism alike (only the URL differs). */
export function jsonPostScenario(name: string, authorization: string): Scenario {
  return {
    name,
    path: '/v1/charges',
    method: 'POST',
    headers: { Authorization: authorization, 'Content-Type': 'application/json' },
    body: JSON_BODY,
    freshIdempotencyKey: true,
  };
}

/** The bare POST route of the baseline process, loaded with the very request the server gets. */
export function barePostBaseline(url: string, authorization: string, settings: LoadSettings): Baseline {
  return {
    url,
    scenario: jsonPostScenario('bare Express POST (baseline, JSON, 16 conn.)', authorization),
    settings: { ...settings, connections: JSON_POST_CONNECTIONS },
  };
}

/** Throws unless `url` answers the scenario's POST once with a charge (a JSON body is accepted). */
export async function expectChargeFromJson(url: string, scenario: Scenario): Promise<void> {
  const res = await fetch(url + scenario.path, {
    method: 'POST',
    headers: { ...scenario.headers, 'Idempotency-Key': `bench_check_${randomUUID()}` },
    body: scenario.body,
  });
  const json = (await res.json()) as { object?: string };
  if (!res.ok || json.object !== 'charge')
    throw new Error(`POST ${url}${scenario.path} with JSON answered ${res.status}: ${JSON.stringify(json)}`);
}

/**
 * A discarded run of the POST against `url` with the bare POST route's load: for a process started
 * just now (Prism), so that it is measured with its code as warm as the server's.
 */
export async function warmUpWithPost(url: string, barePost: Baseline): Promise<void> {
  await measure(url, { ...barePost.scenario, name: 'warm-up' }, barePost.settings);
}

/** What the JSON POST rows need from the pass. */
export interface JsonPostContext {
  database: 'sqlite' | 'postgres';
  interleaver: Interleaver;
  server: ServerProcess;
  prism: ServerProcess;
  barePost: Baseline;
  authorization: string;
}

/**
 * The POST against the bare POST route, then Prism against it: the POST's row (with its target,
 * items 1 and 5 of the issue) and Prism's (with the POST's ratio over Prism's as its target).
 */
export async function measureJsonPost(ctx: JsonPostContext): Promise<Row> {
  const scenario = jsonPostScenario('POST /v1/charges JSON (new key, 16 conn.)', ctx.authorization);
  const mock = jsonPostScenario('Prism mock: POST /v1/charges JSON (16 conn.)', ctx.authorization);
  await expectChargeFromJson(ctx.server.url, scenario);
  await expectChargeFromJson(ctx.prism.url, mock);
  const post = await ctx.interleaver.against(ctx.barePost, { url: ctx.server.url, scenario });
  if (ctx.database === 'postgres') {
    post.target = {
      text: '≥ 0.40 × bare POST, p99 ≤ 100',
      value: `${post.ratioToBaseline.toFixed(2)}, ${post.p99Ms.toFixed(0)} ms`,
      met: post.ratioToBaseline >= 0.4 && post.p99Ms <= 100,
    };
  } else {
    target(post, '≥ 0.60 × bare POST', post.ratioToBaseline, 0.6);
  }
  const prism = await ctx.interleaver.against(ctx.barePost, { url: ctx.prism.url, scenario: mock });
  // Each against its own bare POST run: the ratio of ratios cancels the machine's drift between them.
  const overPrism = post.ratioToBaseline / prism.ratioToBaseline;
  if (ctx.database === 'postgres') target(prism, 'POST ≥ 1.00 × Prism', overPrism, 1);
  else targetAbove(prism, 'POST > 1.00 × Prism', overPrism, 1);
  return post;
}
