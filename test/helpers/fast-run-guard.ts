/**
 * Loaded by `.mocharc.fast.cjs`: in the fast run every way of starting a process throws, so a test
 * that starts one without `requireProcesses(this)` fails there instead of slowing the loop down.
 * `openssl` runs (the tests of client certificates make theirs with it, in milliseconds), and so do
 * mocha's own workers (the fast run takes three files at a time).
 */
import childProcess from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { promisify } from 'node:util';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
const ALLOWED = new Set(['openssl', createRequire(import.meta.url).resolve('mocha/lib/nodejs/worker.cjs')]);

type Starter = ((command: string, ...rest: unknown[]) => unknown) & { [promisify.custom]?: Starter };
const starters = childProcess as unknown as Record<string, Starter>;

function guard(name: string, original: Starter): Starter {
  return (command, ...rest) => {
    if (ALLOWED.has(command)) return original(command, ...rest);
    throw new Error(`${name}(${command}) in the fast run: call requireProcesses(this) in the before hook or test that starts it`);
  };
}

for (const name of STARTERS) {
  const original = starters[name];
  const guarded = guard(name, original);
  // `promisify(execFile)` resolves with { stdout, stderr } through the original's own promise form.
  const promised = original[promisify.custom];
  if (promised) guarded[promisify.custom] = guard(name, promised);
  starters[name] = guarded;
}
// The named ESM exports (`import { spawn } from 'node:child_process'`) follow the CommonJS ones only after this.
syncBuiltinESMExports();
