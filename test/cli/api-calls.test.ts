import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Command } from 'commander';
import { createProgram } from '../../src/cli/program.js';
import { freePort } from '../helpers/api-process.js';
import { runCli } from '../helpers/cli-process.js';
import { forEachDatabase } from '../helpers/databases.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { against, useCliServer } from './cli-server.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** Every command's words (`['events', 'resend']`), the root included as `[]`. */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return [prefix, ...command.commands.flatMap((sub) => commandPaths(sub, [...prefix, sub.name()]))];
}

describe('payments CLI: help and usage errors', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(60_000);

  it("prints every command's --help with an example, exit 0", async () => {
    const paths = commandPaths(createProgram());
    const results = await Promise.all(paths.map((words) => runCli([...words, '--help'])));
    results.forEach((result, index) => {
      const name = ['payments', ...paths[index]].join(' ');
      expect(result.code, name).to.equal(0);
      expect(result.stdout, name).to.include('Examples:').and.include(`$ ${name}`);
    });
    expect(paths.map((words) => words.join(' '))).to.include.members(['get', 'post', 'delete', 'trigger', 'events resend', 'logs tail']);
  });

  it('exits 2 with a message for usage errors, before any request', async () => {
    const noKey = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-cli-'));
    try {
      const [unknownCommand, missingPath, badData, unknownOption, url, noKeyAnywhere] = await Promise.all([
        runCli(['charge']),
        runCli(['get']),
        runCli(['post', '/v1/customers', '-d', 'email'], { PAYMENTS_API_KEY: 'sk_test_x' }),
        runCli(['get', '/v1/charges', '--limit', '3']),
        runCli(['get', 'https://example.com/v1/charges'], { PAYMENTS_API_KEY: 'sk_test_x' }),
        runCli(['get', '/v1/charges'], { DATA_DIR: noKey }),
      ]);
      for (const result of [unknownCommand, missingPath, badData, unknownOption, url, noKeyAnywhere]) {
        expect(result.code, result.stderr).to.equal(2);
        expect(result.stdout).to.equal('');
        expect(result.stderr).to.match(/^error: /m).and.not.match(/\n\s+at /);
      }
      expect(unknownCommand.stderr).to.include("unknown command 'charge'");
      expect(missingPath.stderr).to.include("missing required argument 'path'");
      expect(badData.stderr).to.include('-d takes key=value');
      expect(unknownOption.stderr).to.include("unknown option '--limit'");
      expect(url.stderr).to.include('not a URL');
      expect(noKeyAnywhere.stderr).to.include('--api-key').and.include('PAYMENTS_API_KEY').and.include(path.join(noKey, 'dev-api-key'));
    } finally {
      fs.rmSync(noKey, { recursive: true, force: true });
    }
  });

  it('exits 1 naming the server when nothing answers there', async () => {
    const port = await freePort();
    const result = await runCli(['--api-base', `http://127.0.0.1:${port}`, 'get', '/v1/charges'], { PAYMENTS_API_KEY: 'sk_test_x' });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.equal(`error: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
  });
});

forEachDatabase('payments get/post/delete', (engine) => {
  before(function () {
    requireProcesses(this);
  });
  const server = useCliServer(engine);

  it('creates with form fields in bracket notation, reads with query parameters, deletes', async () => {
    const created = await runCli(
      against(server, 'post', '/v1/customers', '-d', 'email=jenny@example.com', '-d', 'metadata[order]=6735'),
      server.cliEnv(),
    );
    expect(created.code, created.stderr).to.equal(0);
    const customer = JSON.parse(created.stdout);
    expect(customer).to.deep.include({ object: 'customer', email: 'jenny@example.com', metadata: { order: '6735' } });

    const [listed, fetched] = await Promise.all([
      runCli(against(server, 'get', '/v1/customers', '-d', 'limit=1', '-d', 'email=jenny@example.com'), server.cliEnv()),
      runCli(against(server, 'get', `v1/customers/${customer.id}`), server.cliEnv()),
    ]);
    expect(JSON.parse(listed.stdout)).to.deep.include({ object: 'list', url: '/v1/customers' });
    expect(JSON.parse(listed.stdout).data.map((c: { id: string }) => c.id)).to.deep.equal([customer.id]);
    expect(JSON.parse(fetched.stdout)).to.deep.equal(customer);

    const deleted = await runCli(against(server, 'delete', `/v1/customers/${customer.id}`), server.cliEnv());
    expect(deleted.code, deleted.stderr).to.equal(0);
    expect(JSON.parse(deleted.stdout)).to.deep.equal({ id: customer.id, object: 'customer', deleted: true });
    // A deleted customer reads as its tombstone; a second delete is a 404.
    expect((await server.api.get(`/v1/customers/${customer.id}`)).body).to.deep.equal({ id: customer.id, object: 'customer', deleted: true });
    expect((await server.api.delete(`/v1/customers/${customer.id}`)).status).to.equal(404);
  });

  it('sends --idempotency-key: the same key replays the first answer, making one object', async () => {
    const args = against(server, 'post', '/v1/charges', '-d', 'amount=1234', '-d', 'currency=usd', '-d', 'source=tok_visa');
    const [first, other] = await Promise.all([
      runCli([...args, '--idempotency-key', 'cli-order-1'], server.cliEnv()),
      runCli([...args, '--idempotency-key', 'cli-order-2'], server.cliEnv()),
    ]);
    const again = await runCli([...args, '--idempotency-key', 'cli-order-1'], server.cliEnv());
    expect([first.code, again.code, other.code]).to.deep.equal([0, 0, 0]);
    expect(JSON.parse(again.stdout)).to.deep.equal(JSON.parse(first.stdout));
    expect(JSON.parse(other.stdout).id).not.to.equal(JSON.parse(first.stdout).id);
    const charges = (await server.api.get('/v1/charges?limit=100')).body.data as Array<{ amount: number }>;
    expect(charges.filter((charge) => charge.amount === 1234)).to.have.length(2);
  });

  it('prints plain JSON into a pipe, and coloured JSON with FORCE_COLOR', async () => {
    const args = against(server, 'get', '/v1/charges', '-d', 'limit=2');
    const [plain, coloured, noColour] = await Promise.all([
      runCli(args, server.cliEnv()),
      runCli(args, { ...server.cliEnv(), FORCE_COLOR: '1' }),
      runCli(args, { ...server.cliEnv(), NO_COLOR: '1' }),
    ]);
    expect(plain.stdout).not.to.match(ANSI);
    expect(plain.stdout).to.equal(`${JSON.stringify(JSON.parse(plain.stdout), null, 2)}\n`);
    expect(coloured.stdout).to.match(ANSI);
    expect(coloured.stdout.replace(ANSI, '')).to.equal(plain.stdout);
    expect(noColour.stdout).to.equal(plain.stdout);
  });

  it('exits 1 with the error envelope on stderr for a 404 and a 402', async () => {
    const [missing, declined] = await Promise.all([
      runCli(against(server, 'get', '/v1/charges/ch_doesNotExist'), server.cliEnv()),
      runCli(against(server, 'post', '/v1/charges', '-d', 'amount=500', '-d', 'currency=usd', '-d', 'source=tok_chargeDeclined'), server.cliEnv()),
    ]);
    expect(missing.code).to.equal(1);
    expect(missing.stdout).to.equal('');
    expect(JSON.parse(missing.stderr).error).to.include({ type: 'invalid_request_error', code: 'resource_missing' });
    expect(declined.code).to.equal(1);
    expect(JSON.parse(declined.stderr).error).to.include({ type: 'card_error', code: 'card_declined' });
    expect(JSON.parse(declined.stderr).error.charge).to.match(/^ch_/);
  });

  it('takes the key from --api-key over PAYMENTS_API_KEY, and from $DATA_DIR/dev-api-key without either', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-cli-'));
    fs.writeFileSync(path.join(dataDir, 'dev-api-key'), `${server.apiKey}\n`);
    try {
      const [fromFlag, fromEnv, fromFile, wrongKey] = await Promise.all([
        runCli(against(server, '--api-key', server.apiKey, 'get', '/v1/customers'), { PAYMENTS_API_KEY: 'sk_test_wrong' }),
        runCli(against(server, 'get', '/v1/customers'), server.cliEnv()),
        runCli(against(server, 'get', '/v1/customers'), { DATA_DIR: dataDir }),
        runCli(against(server, 'get', '/v1/customers'), { PAYMENTS_API_KEY: 'sk_test_wrong' }),
      ]);
      for (const result of [fromFlag, fromEnv, fromFile]) {
        expect(result.code, result.stderr).to.equal(0);
        expect(JSON.parse(result.stdout).object).to.equal('list');
      }
      expect(wrongKey.code).to.equal(1);
      expect(JSON.parse(wrongKey.stderr).error.type).to.equal('authentication_error');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
