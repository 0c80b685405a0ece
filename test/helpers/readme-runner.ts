/**
 * Runs a README shell block command by command in a ReadmeProject and holds each command against
 * what the README says of it: its exit status, the HTTP status of its curls (2xx unless the text
 * says otherwise), a JSON body, and the claims the test lists for it. A command that cannot run
 * as written (starting the server, running the suite) is done by its stand-in instead.
 */
import type { ReadmeBlock, ReadmeCommand } from './readme-blocks.js';
import { claimedStatus } from './readme-blocks.js';
import type { ReadmeProject } from './readme-project.js';
import type { ShellResult } from './readme-shell.js';

/** A command's run, with its output read as an HTTP response where it is one. */
export interface CommandRun extends ShellResult {
  command: ReadmeCommand;
  /** The response headers printed by `curl -i` (lower-case names); empty without `-i`. */
  headers: Record<string, string>;
  /** The output (its body, after `curl -i`'s headers) as JSON. */
  json<T = any>(): T;
}

/** Something the README says about one of its commands, and how the test checks it. */
export interface Claim {
  /**
   * The command, on one line (see `ReadmeCommand.flat`): a part of it that no other command has, or
   * a pattern that only it matches (when its whole text is a part of another's).
   */
  command: string | RegExp;
  /** What the README says. */
  says: string;
  /** The HTTP status its curl must get, when the text says one other than a success. */
  status?: number;
  /** Throws if the run contradicts the text (runs right after the command, before the next). */
  check?(run: CommandRun, project: ReadmeProject): unknown;
}

/** What the test does instead of a command that cannot run as written inside a test run. */
export interface StandIn {
  /** Matches the whole command (`ReadmeCommand.flat`). */
  command: RegExp;
  /** What is done instead, and why: shown in the test's title. */
  does: string;
  /** Does it; resolves with a reason when it cannot here (the rest of the block is then skipped). */
  run(match: RegExpExecArray, project: ReadmeProject): Promise<string | void>;
}

/** The result of a block: run, or skipped with a reason. */
export type BlockOutcome = { skipped: string } | { skipped: undefined };

/**
 * A command that starts or builds something the test cannot let it, or that npx would fetch from
 * the registry in the test's folder (every npx but `npx payments`, which the project rewrites to
 * the checkout's command): each needs a stand-in.
 */
const NEEDS_STAND_IN = /(^|[;&|(]\s*)(npm\b|npx (?!payments\b))/;

/** Whether `claim` is about `command`. */
function isAbout(claim: Claim, command: ReadmeCommand): boolean {
  return typeof claim.command === 'string' ? command.flat.includes(claim.command) : claim.command.test(command.flat);
}

/** The stand-in for `command`, if one matches it. */
export function standInFor(command: ReadmeCommand, standIns: StandIn[]): { standIn: StandIn; match: RegExpExecArray } | undefined {
  for (const standIn of standIns) {
    const match = standIn.command.exec(command.flat);
    if (match) return { standIn, match };
  }
  return undefined;
}

/** What is wrong with the tables against the docs: a claim or stand-in matching no command, or a claim several. */
export function unmatched(blocks: ReadmeBlock[], claims: Claim[], standIns: StandIn[]): string[] {
  const commands = blocks.flatMap((block) => block.commands);
  const problems: string[] = [];
  for (const claim of claims) {
    const lines = commands.filter((command) => isAbout(claim, command)).map((command) => `${command.file}:${command.line}`);
    if (lines.length !== 1) problems.push(`claim ${String(claim.command)} matches ${lines.length} commands (lines ${lines.join(', ') || 'none'})`);
  }
  for (const standIn of standIns) {
    if (!commands.some((command) => standIn.command.test(command.flat))) problems.push(`stand-in ${standIn.command} matches no command`);
  }
  for (const command of commands) {
    if (NEEDS_STAND_IN.test(command.flat) && !standInFor(command, standIns)) {
      problems.push(`${command.file}:${command.line}: \`${command.flat}\` cannot run inside a test and has no stand-in`);
    }
  }
  return problems;
}

/** Runs every command of `block` in order; throws naming the file and line of the first that fails. */
export async function runBlock(block: ReadmeBlock, project: ReadmeProject, claims: Claim[], standIns: StandIn[]): Promise<BlockOutcome> {
  for (const command of block.commands) {
    const stand = standInFor(command, standIns);
    if (stand) {
      const skipped = await failsAt(command, () => stand.standIn.run(stand.match, project));
      if (skipped) return { skipped: `${command.file}:${command.line}: ${skipped}` };
      continue;
    }
    const result = await failsAt(command, () => project.shell.run(project.rewrite(command.text)));
    const run = commandRun(command, result);
    const about = claims.filter((claim) => isAbout(claim, command));
    await failsAt(command, async () => {
      expectSuccess(run, about);
      for (const claim of about) await claim.check?.(run, project);
    }, result);
  }
  return { skipped: undefined };
}

/** The exit status, the HTTP statuses and the body the text leads one to expect. */
function expectSuccess(run: CommandRun, claims: Claim[]): void {
  if (run.exitCode !== 0) throw new Error(`exit status ${run.exitCode}`);
  const fromComment = claimedStatus(run.command.comment);
  const expected = claims.find((claim) => claim.status !== undefined)?.status ?? fromComment?.status;
  for (const status of run.httpStatuses) {
    const fits = expected === undefined ? status >= 200 && status < 300 : status === expected;
    if (!fits) throw new Error(`HTTP ${status}, where the text says ${expected ?? 'it succeeds (2xx)'}`);
  }
  if (run.command.flat.startsWith('curl ') && run.stdout !== '') run.json(); // every response body is JSON
  if (fromComment?.code) {
    const code = run.json<{ error?: { code?: string } }>().error?.code;
    if (code !== fromComment.code) throw new Error(`error code ${code}, where the text says ${fromComment.code}`);
  }
}

function commandRun(command: ReadmeCommand, result: ShellResult): CommandRun {
  const { stdout } = result;
  const split = stdout.startsWith('HTTP/') ? stdout.indexOf('\r\n\r\n') : -1;
  const headers: Record<string, string> = {};
  if (split >= 0) {
    for (const line of stdout.slice(0, split).split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
  }
  const body = split >= 0 ? stdout.slice(split + 4) : stdout;
  const json = <T>(): T => {
    try {
      return JSON.parse(body) as T;
    } catch {
      throw new Error(`the output is not JSON: ${body.slice(0, 500)}`);
    }
  };
  return { ...result, command, headers, json };
}

/** Runs `step`; a failure is rethrown naming the file, line and command, with the command's output. */
async function failsAt<T>(command: ReadmeCommand, step: () => Promise<T>, result?: ShellResult): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const output = result ? `\n--- stdout\n${result.stdout.slice(0, 4000)}\n--- stderr\n${result.stderr.slice(0, 2000)}` : '';
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${command.file}:${command.line}: ${command.text.split('\n')[0]}\n${message}${output}`, { cause: error });
  }
}
