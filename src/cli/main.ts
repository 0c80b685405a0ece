/**
 * The `payments` CLI's entry: runs the program and turns how it ended into the exit code —
 * 0 success; 1 an API error (its envelope on stderr), an unreachable server, or a command that
 * could not be done; 2 a usage error. Expected failures never print a stack.
 */
import { CommanderError } from 'commander';
import { PaymentsError } from '../../sdk/src/index.js';
import { ApiFailure, CommandFailure, NetworkFailure, UsageError } from './failures.js';
import { printJson } from './output.js';
import { createProgram } from './program.js';

/** Runs `payments` with `argv` (as `process.argv`: node and script first) and resolves to its exit code. */
async function runProgram(argv: string[]): Promise<number> {
  try {
    await createProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    return reportFailure(error);
  }
}

/** Prints an expected failure as the user needs it and returns its exit code; anything else is rethrown. */
function reportFailure(error: unknown): number {
  // Commander has already printed its message (or the help); only the code is left to decide.
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  if (error instanceof ApiFailure) {
    printJson(error.body ?? { error: { message: error.message } }, process.stderr);
    return 1;
  }
  // What the SDK's own helpers (autoPaginate, unwrap) throw for an error answer.
  if (error instanceof PaymentsError) {
    printJson(error.error ? { error: error.error } : { error: { message: error.message } }, process.stderr);
    return 1;
  }
  if (error instanceof NetworkFailure || error instanceof CommandFailure) {
    process.stderr.write(`error: ${error.message}\n`);
    return 1;
  }
  throw error;
}

process.exitCode = await runProgram(process.argv);
