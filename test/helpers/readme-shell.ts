/**
 * One real `bash` process that runs commands one after the other, like a terminal: variables and
 * exports of one command are there for the next. Each command is written to a file and sourced,
 * so that it runs exactly as written (continuations, quotes, process substitution), and a marker
 * printed after it says it finished and with what exit status.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What one command did. */
export interface ShellResult {
  exitCode: number;
  stdout: string;
  /** Its standard error, without the status lines of the curl wrapper. */
  stderr: string;
  /** The HTTP status of every curl it ran (`0` when curl got no response), in order. */
  httpStatuses: number[];
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** A bash session in `cwd`, with `env` as its whole environment. */
export class ShellSession {
  private readonly marker = `readme-shell-${randomBytes(8).toString('hex')}`;
  private readonly scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-readme-shell-'));
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = '';
  private stderr = '';
  private commands = 0;
  private exited = false;
  private readonly exit: Promise<void>;
  private wake: (() => void) | undefined;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    // Its own process group, so that closing it also ends what a command left running.
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child.stdout.on('data', (chunk: Buffer) => this.received(() => (this.stdout += chunk.toString())));
    this.child.stderr.on('data', (chunk: Buffer) => this.received(() => (this.stderr += chunk.toString())));
    this.exit = new Promise((resolve) =>
      this.child.once('exit', () => {
        this.exited = true;
        this.wake?.();
        resolve();
      }),
    );
    // Every curl also reports its HTTP status on stderr, so that a test can hold it against the
    // text without changing the command. Subshells and pipelines inherit the function.
    this.write(`curl() { command curl --write-out '%{stderr}\\n${this.marker}-http %{http_code}\\n' "$@"; }\n`);
  }

  /** Runs `script` (one command, as written) and resolves with what it did; rejects after `timeoutMs`. */
  async run(script: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ShellResult> {
    const file = path.join(this.scratch, `command-${++this.commands}.sh`);
    fs.writeFileSync(file, `${script}\n`);
    // Sourced with stdin from /dev/null: a command that reads its input must not eat the next one.
    this.write(`. '${file}' < /dev/null; printf '\\n${this.marker} %d\\n' $?; printf '\\n${this.marker}\\n' >&2\n`);
    const done = new RegExp(`\\n${this.marker} (\\d+)\\n`);
    const errorsDone = `\n${this.marker}\n`;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const finished = done.exec(this.stdout);
      const errorsAt = this.stderr.indexOf(errorsDone);
      if (finished && errorsAt >= 0) {
        const stdout = this.stdout.slice(0, finished.index);
        const stderr = this.stderr.slice(0, errorsAt);
        this.stdout = this.stdout.slice(finished.index + finished[0].length);
        this.stderr = this.stderr.slice(errorsAt + errorsDone.length);
        return { exitCode: Number(finished[1]), stdout, ...this.curlStatuses(stderr) };
      }
      if (this.exited) throw new Error(`the shell exited while running it:\n${this.stdout}\n${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) {
        await this.close();
        throw new Error(`it did not finish within ${timeoutMs} ms:\n${this.stdout}\n${this.stderr}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** The value of a shell variable, as the next command would see it. */
  async variable(name: string): Promise<string> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a variable name: ${name}`);
    return (await this.run(`printf %s "$${name}"`)).stdout;
  }

  /** Ends the shell and its process group (by the shell's PID, which is the group's id) and removes its command files. */
  async close(): Promise<void> {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // the group has no process left
    }
    await this.exit;
    fs.rmSync(this.scratch, { recursive: true, force: true });
  }

  private write(text: string): void {
    this.child.stdin.write(text);
  }

  private received(append: () => void): void {
    append();
    this.wake?.();
  }

  private curlStatuses(stderr: string): { stderr: string; httpStatuses: number[] } {
    const line = new RegExp(`\\n?${this.marker}-http (\\d{3})\\n`, 'g');
    const httpStatuses = [...stderr.matchAll(line)].map((match) => Number(match[1]));
    return { stderr: stderr.replace(line, ''), httpStatuses };
  }
}
