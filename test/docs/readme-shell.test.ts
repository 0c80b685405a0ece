import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { requireProcesses } from '../helpers/fast-run.js';
import { readmeBlocks, type ReadmeBlock } from '../helpers/readme-blocks.js';
import { ReadmeProject } from '../helpers/readme-project.js';
import { runBlock, standInFor, unmatched } from '../helpers/readme-runner.js';
import { README_CLAIMS } from './readme-claims.js';
import { README_PORTS, README_STAND_INS } from './readme-stand-ins.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The files whose shell blocks run, in the order a reader meets them: the README (whose tour starts
 * the server and exports `API_KEY`), then the guides, each going on from where the one before left
 * the shell and the server. A guide not listed here runs after these, in name order.
 */
const READING_ORDER = [
  'README.md',
  'docs/integrating.md',
  'docs/webhooks.md',
  'docs/authentication.md',
  'docs/graphql.md',
  'docs/operating.md',
  'docs/designing.md',
  'docs/developing.md',
  'docs/performance.md',
];

/** README.md and every guide under docs/, in reading order. */
function documentation(): string[] {
  const guides = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
    .sort();
  return [...READING_ORDER, ...guides.filter((file) => !READING_ORDER.includes(file))];
}

/** The test's title for a block: where it is, and what stands in for the commands it cannot run. */
function title(block: ReadmeBlock): string {
  const standIns = block.commands.flatMap((command) => {
    const stand = standInFor(command, README_STAND_INS);
    return stand ? [`\`${command.flat}\` → ${stand.standIn.does}`] : [];
  });
  return `${block.file}:${block.line} (${block.section}) runs as written${standIns.length ? `; ${standIns.join('; ')}` : ''}`;
}

/**
 * Every ```bash block of README.md and of the guides under docs/, run in reading order with real
 * bash against one real server process, as a newcomer would run them: from a folder laid out like the project (its `data/` the server's,
 * `scripts/` the checkout's), one shell for every block (the README's second terminal: what one
 * block exports the next uses), and the server started the way the README starts it (SQLite in
 * `./data`, the first start making `data/dev-api-key` and `data/admin-credentials`).
 *
 * The commands run verbatim but for two things: the README's fixed ports (`127.0.0.1:4242`, the
 * receiver's 4343, the TLS listener's 4443) are rewritten to free ones, and the shell's `curl` is a
 * function that also reports each response's HTTP status on stderr (`--write-out`). A command that
 * cannot run inside the suite (`npm start`, `npm test`, a receiver in the foreground) is done by its
 * stand-in (`readme-stand-ins.ts`), named in the test's title, and a command that needs one and has
 * none fails the first test. Each command must exit 0, its curls get a 2xx unless the text claims
 * another status (a trailing `# 403 insufficient_scope`, or a claim), and what the text says of its
 * output is checked (`readme-claims.ts`); a failure names the file and line.
 */
describe('README.md and docs/: every shell block, in reading order, against a real server', function () {
  before(function () {
    requireProcesses(this);
  });
  this.timeout(60_000);
  const files = documentation();
  const blocks = files.flatMap((file) => readmeBlocks(fs.readFileSync(path.join(ROOT, file), 'utf8'), file));
  const shellBlocks = blocks.filter((block) => block.language === 'bash');
  let project: ReadmeProject;
  let failedAt: string | undefined;

  before(async () => {
    project = await ReadmeProject.create(README_PORTS);
  });
  after(async () => {
    await project?.close();
  });

  it('has shell blocks only as ```bash, and every claim and stand-in of the test names its command', () => {
    for (const file of READING_ORDER) expect(fs.existsSync(path.join(ROOT, file)), `${file} is in the reading order`).to.equal(true);
    const otherShells = blocks.filter((block) => ['sh', 'shell', 'console', 'zsh'].includes(block.language));
    expect(otherShells.map((block) => `${block.file}:${block.line}`), 'write shell blocks as ```bash so that they are run').to.deep.equal([]);
    expect(shellBlocks.length).to.be.greaterThan(10);
    expect(unmatched(shellBlocks, README_CLAIMS, README_STAND_INS)).to.deep.equal([]);
  });

  for (const block of shellBlocks) {
    it(title(block), async function () {
      // After a failure the shell's variables and the server are not what the text assumes.
      if (failedAt !== undefined) {
        this.test!.title += ` (skipped: the block at ${failedAt} failed)`;
        this.skip();
      }
      failedAt = `${block.file}:${block.line}`;
      const outcome = await runBlock(block, project, README_CLAIMS, README_STAND_INS);
      failedAt = undefined;
      if (outcome.skipped) {
        this.test!.title += ` (skipped: ${outcome.skipped})`;
        this.skip();
      }
    });
  }
});
