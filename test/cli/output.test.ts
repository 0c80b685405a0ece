import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { colouredJson, colourFor, printTable } from '../../src/cli/output.js';
import { SeenIds } from '../../src/cli/seen-ids.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** A stream that keeps what is written, as a terminal (`isTTY`) or a pipe. */
function sink(isTTY: boolean): PassThrough & { isTTY: boolean; text(): string } {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return Object.assign(stream, { text: () => text });
}

describe('CLI output', () => {
  const cases: Array<[string, boolean, NodeJS.ProcessEnv, boolean]> = [
    ['a terminal', true, {}, true],
    ['a pipe', false, {}, false],
    ['a terminal with NO_COLOR', true, { NO_COLOR: '1' }, false],
    ['a pipe with FORCE_COLOR', false, { FORCE_COLOR: '1' }, true],
    ['FORCE_COLOR over NO_COLOR', false, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
    ['a terminal with FORCE_COLOR=0', true, { FORCE_COLOR: '0' }, false],
    ['a pipe with FORCE_COLOR=0', false, { FORCE_COLOR: '0' }, false],
    ['a terminal with an empty NO_COLOR', true, { NO_COLOR: '' }, true],
  ];
  for (const [name, isTTY, env, expected] of cases) {
    it(`${expected ? 'colours' : 'does not colour'} ${name}`, () => {
      expect(colourFor(sink(isTTY), env)).to.equal(expected);
    });
  }

  it('colours JSON without changing its text', () => {
    const value = { id: 'ch_1', amount: -2.5e3, paid: true, customer: null, tags: ['a "quoted" key:', 'x'], nested: { ok: false } };
    const coloured = colouredJson(value);
    expect(coloured).to.match(ANSI);
    expect(coloured.replace(ANSI, '')).to.equal(JSON.stringify(value, null, 2));
  });

  it('aligns table columns, the last one unpadded', () => {
    const out = sink(false);
    printTable([['ID', 'STATUS', 'URL'], ['we_1', 'enabled', 'https://a.example'], ['we_22222', 'disabled', 'https://b']], out);
    expect(out.text().replace(ANSI, '')).to.equal(
      'ID        STATUS    URL\nwe_1      enabled   https://a.example\nwe_22222  disabled  https://b\n',
    );
  });

  it('remembers only the most recent ids', () => {
    const seen = new SeenIds(3);
    for (const id of ['a', 'b', 'c', 'b', 'd']) seen.add(id);
    expect(['a', 'b', 'c', 'd'].map((id) => seen.has(id))).to.deep.equal([false, true, true, true]);
    expect(seen.size).to.equal(3);
  });
});
