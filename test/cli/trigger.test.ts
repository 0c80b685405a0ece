import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { isTrigger, TRIGGERS } from '../../src/cli/triggers.js';
import { runCli, type CliResult } from '../helpers/cli-process.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { against, useCliServer } from './cli-server.js';

const SPEC = path.resolve(import.meta.dirname, '../../openapi/openapi.yaml');

/** The event types of the spec: the names of its `webhooks:` section. */
function specEventTypes(): string[] {
  const spec = YAML.parse(fs.readFileSync(SPEC, 'utf8')) as { webhooks: Record<string, unknown> };
  return Object.keys(spec.webhooks);
}

const TRIGGERABLE = Object.keys(TRIGGERS).filter((type) => isTrigger(TRIGGERS[type as keyof typeof TRIGGERS]));

/** Runs `work` on every item, at most `limit` at a time (each CLI run is a node process of its own), in order. */
async function pooled<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe('payments trigger: the event types it knows', function () {
  this.timeout(30_000);

  it('has a trigger for every event type of the spec, or a reason why the API cannot produce it', () => {
    expect(Object.keys(TRIGGERS)).to.have.members(specEventTypes());
    for (const [type, entry] of Object.entries(TRIGGERS)) {
      if (!isTrigger(entry)) expect(entry.notTriggerable, type).to.match(/\w{10}/);
    }
  });

  it('lists every event type in --help, and refuses an unknown one with exit 2, listing the supported ones', async function () {
    requireProcesses(this);
    const [help, unknown, untriggerable] = await Promise.all([
      runCli(['trigger', '--help']),
      runCli(['trigger', 'charge.exploded'], { PAYMENTS_API_KEY: 'sk_test_x' }),
      runCli(['trigger', 'charge.expired'], { PAYMENTS_API_KEY: 'sk_test_x' }),
    ]);
    expect(help.code).to.equal(0);
    for (const type of specEventTypes()) expect(help.stdout).to.include(`  ${type} `);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.include('unknown event type "charge.exploded"');
    for (const type of TRIGGERABLE) expect(unknown.stderr).to.include(type);
    expect(untriggerable.code).to.equal(2);
    expect(untriggerable.stderr).to.include('charge.expired cannot be triggered: only the worker produces it');
  });
});

forEachDatabase('payments trigger', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  const server = useCliServer(engine);

  it('makes an event of each type it can trigger, about the objects it prints', async function () {
    this.timeout(120_000);
    const runs = await pooled(TRIGGERABLE, 4, (type) => runCli(against(server, 'trigger', type), server.cliEnv()));
    const outcomes = await Promise.all(TRIGGERABLE.map((type, index) => eventOf(type, runs[index])));
    for (const outcome of outcomes) expect(outcome.found, outcome.type).to.equal(true);
    // A decline is the expected outcome of charge.failed: the failed charge is printed, exit 0.
    const [charge] = JSON.parse(runs[TRIGGERABLE.indexOf('charge.failed')].stdout);
    expect(charge).to.include({ object: 'charge', status: 'failed', failure_code: 'card_declined' });
  });

  /** Whether `run` exited 0 with a JSON array of objects, one of which an event of `type` is about. */
  async function eventOf(type: string, run: CliResult): Promise<{ type: string; found: boolean }> {
    expect(run.code, `${type}: ${run.stderr}`).to.equal(0);
    expect(run.stderr).to.include(`Triggering ${type}`);
    const made = JSON.parse(run.stdout) as Array<{ id: string; object: string }>;
    expect(made, type).to.be.an('array');
    expect(made.length, type).to.be.greaterThan(0);
    const events = await server.api.get(`/v1/events?type=${type}&limit=100`);
    expect(events.status).to.equal(200);
    const ids = new Set(made.map((object) => object.id));
    const found = (events.body.data as Array<{ data: { object: { id: string } } }>).some((event) => ids.has(event.data.object.id));
    return { type, found };
  }
});
