import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { humanMessage } from '../../src/logging/human-lines.js';
import { chooseLogFormat } from '../../src/logging/logger.js';
import { requireProcesses } from '../helpers/fast-run.js';
import { runMain, type MainRun } from '../helpers/run-main.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
/** `[HH:MM:ss.mmm] LEVEL: text`, pino-pretty's line for a person, colours left out. */
const HUMAN_LINE = /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] (INFO|WARN|ERROR): /;

/**
 * A start that logs and then fails (its port is taken): the lines of its stdout. It logs "database
 * migrated" first, and stops before serving, so the test needs no shutdown.
 */
async function startOnTakenPort(env: Record<string, string>): Promise<{ run: MainRun; lines: string[] }> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-format-'));
  try {
    const result = await runMain({ DATA_DIR: dataDir, PORT: String((holder.address() as net.AddressInfo).port), ...env });
    return { run: result, lines: result.stdout.split('\n').filter(Boolean) };
  } finally {
    holder.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('log format: lines for a person on a terminal, JSON elsewhere', function () {
  this.timeout(60_000);

  it('chooses pretty on a terminal and JSON elsewhere, unless LOG_FORMAT says', () => {
    expect(chooseLogFormat(undefined, true)).to.equal('pretty');
    expect(chooseLogFormat(undefined, false)).to.equal('json');
    expect(chooseLogFormat('json', true)).to.equal('json');
    expect(chooseLogFormat('pretty', false)).to.equal('pretty');
  });

  it('writes the message, then the fields it does not already say, then an error stack below', () => {
    const url = 'http://127.0.0.1:4242';
    expect(humanMessage({ level: 30, time: 't', msg: `Ready at ${url}`, url, api_processes: 1 }, 'msg')).to.equal(
      `Ready at ${url} api_processes=1`,
    );
    expect(humanMessage({ level: 30, req_id: 'req_1', method: 'GET', status: 200 }, 'msg')).to.equal('req_id=req_1 method=GET status=200');
    const failed = humanMessage({ msg: 'request failed', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (x.ts:1:1)' } }, 'msg');
    expect(failed.split('\n')).to.deep.equal(['request failed', '    Error: boom', '        at f (x.ts:1:1)']);
  });

  it('writes JSON when stdout is not a terminal, and lines for a person with LOG_FORMAT=pretty', async function () {
    requireProcesses(this);
    const [json, pretty] = await Promise.all([startOnTakenPort({}), startOnTakenPort({ LOG_FORMAT: 'pretty' })]);
    for (const { run: started } of [json, pretty]) expect(started.stderr).to.match(/the port is already in use/);

    expect(json.lines, json.run.stdout).to.have.length.above(0);
    for (const line of json.lines) expect(() => JSON.parse(line), line).not.to.throw();
    expect(json.lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).to.include('database migrated');

    expect(pretty.lines, pretty.run.stdout).to.have.length.above(0);
    for (const line of pretty.lines) expect(line).to.match(HUMAN_LINE);
    expect(pretty.lines.join('\n')).to.match(/INFO: database migrated database=SQLite \S+payments\.sqlite/);
    // Not a terminal, so no colours, even when forced.
    expect(pretty.run.stdout).not.to.include('\u001b[');
  });

  it('writes lines for a person, in colour, under a real terminal (script(1) gives one)', async function () {
    requireProcesses(this);
    const script = await run('script', ['--version']).then(
      () => true,
      () => false,
    );
    if (!script) this.skip();
    const program = [
      "import { chooseLogFormat, createLogger } from './src/logging/logger.ts';",
      "createLogger('info', chooseLogFormat(undefined, Boolean(process.stdout.isTTY))).info({ port: 4242 }, 'hello from a terminal');",
    ].join('\n');
    const command = `${process.execPath} --import tsx --input-type=module -e "${program.replaceAll('"', '\\"')}"`;
    const { stdout } = await run('script', ['-qec', command, '/dev/null'], { cwd: ROOT });
    // eslint-disable-next-line no-control-regex
    const plain = stdout.replace(/\u001b\[[0-9;]*m/g, '').trim();
    expect(plain).to.match(HUMAN_LINE);
    expect(plain).to.match(/INFO: hello from a terminal port=4242$/);
    expect(stdout, 'in colour').to.include('\u001b[');
  });
});
