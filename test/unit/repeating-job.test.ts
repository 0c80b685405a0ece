import { expect } from 'chai';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { isConnectionFault, wasNotSent } from '../../src/db/connection-faults.js';
import { createOutageLog } from '../../src/logging/outage-log.js';
import { startRepeatingJob } from '../../src/operations/repeating-job.js';

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string; failures?: number }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await tick();
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

describe('a repeating job', () => {
  it('never runs twice at once, however long a run takes', async () => {
    const { logger } = capturingLogger();
    let running = 0;
    let most = 0;
    let runs = 0;
    const job = startRepeatingJob({ name: 'slow', logger, intervalMs: 1, runAtStart: true }, async () => {
      running += 1;
      most = Math.max(most, running);
      await tick(15);
      running -= 1;
      runs += 1;
    });
    await until(() => runs >= 4, 'four runs');
    await job.stop();
    expect(most).to.equal(1);
  });

  it('logs a failing run, schedules the next one all the same, and says when it works again', async () => {
    const { logger, lines } = capturingLogger();
    let calls = 0;
    const job = startRepeatingJob({ name: 'flaky', logger, intervalMs: 1, runAtStart: true }, async () => {
      calls += 1;
      if (calls <= 3) throw new Error('database away');
    });
    await until(() => calls >= 5, 'five runs');
    await job.stop();
    const warnings = lines.filter((line) => line.level === 40);
    // One warning for the outage, not one per failed run (the next comes a minute later at most).
    expect(warnings.map((line) => line.msg)).to.deep.equal(['flaky failed']);
    const recovered = lines.find((line) => line.msg === 'flaky works again');
    expect(recovered?.failures).to.equal(3);
  });

  it('waits at stop for the run in progress, and runs no more after it', async () => {
    const { logger } = capturingLogger();
    let release!: () => void;
    let finished = false;
    let runs = 0;
    const job = startRepeatingJob({ name: 'held', logger, intervalMs: 1, runAtStart: true }, async () => {
      runs += 1;
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    });
    await until(() => runs === 1, 'the first run');
    const stopped = job.stop();
    let stopResolved = false;
    void stopped.then(() => (stopResolved = true));
    await tick(20);
    expect(stopResolved, 'stop resolved before the run ended').to.equal(false);
    release();
    await stopped;
    expect(finished).to.equal(true);
    await tick(20);
    expect(runs).to.equal(1);
  });

  it('tells a run that the job is stopping, so that a long run can end early', async () => {
    const { logger } = capturingLogger();
    let sawStopping = false;
    let started = false;
    const job = startRepeatingJob({ name: 'long', logger, intervalMs: 1, runAtStart: true }, async (run) => {
      started = true;
      while (!run.stopping) await tick();
      sawStopping = true;
    });
    await until(() => started, 'the run');
    await job.stop();
    expect(sawStopping).to.equal(true);
  });
});

describe('an outage log', () => {
  it('warns at the first failure, again only after its interval, and logs the recovery once', () => {
    const { logger, lines } = capturingLogger();
    const outage = createOutageLog(logger, 'the thing', 0);
    outage.failed(new Error('a'));
    outage.failed(new Error('b'));
    expect(outage.down).to.equal(true);
    outage.succeeded();
    outage.succeeded();
    expect(outage.down).to.equal(false);
    expect(lines.map((line) => line.msg)).to.deep.equal(['the thing failed', 'the thing still failing', 'the thing works again']);
  });

  it('stays quiet between warnings within the interval', () => {
    const { logger, lines } = capturingLogger();
    const outage = createOutageLog(logger, 'the thing');
    for (let i = 0; i < 100; i++) outage.failed(new Error('away'));
    expect(lines).to.have.length(1);
  });
});

describe('connection faults', () => {
  const systemError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });
  const table: Array<[string, unknown, boolean]> = [
    ['a refused connection', systemError('ECONNREFUSED'), true],
    ['a reset connection', systemError('ECONNRESET'), true],
    ['a write to a closed socket (EPIPE)', systemError('EPIPE'), true],
    ['every address refused', new AggregateError([systemError('ECONNREFUSED')], 'connect failed'), true],
    ['pg_terminate_backend (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), true],
    ['the server starting up (57P03)', Object.assign(new Error('the database system is starting up'), { code: '57P03' }), true],
    ['a connection exception (08006)', Object.assign(new Error('connection failure'), { code: '08006' }), true],
    ['a session ended under a query', new Error('Connection terminated unexpectedly'), true],
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' }), false],
    ['a syntax error', Object.assign(new Error('syntax error'), { code: '42601' }), false],
    ['a value that is no error', 'ECONNREFUSED', false],
  ];
  for (const [what, error, fault] of table) {
    it(`${fault ? 'is' : 'is not'} ${what}`, () => expect(isConnectionFault(error)).to.equal(fault));
  }

  it('knows a statement pg refused to send on a broken connection', () => {
    expect(wasNotSent(new Error('Client has encountered a connection error and is not queryable'))).to.equal(true);
    expect(wasNotSent(new Error('Connection terminated unexpectedly'))).to.equal(false);
  });
});
