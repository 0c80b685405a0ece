import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The repository's root and its TypeScript compiler: the version the SDK is built with. */
export const REPO_DIR = fileURLToPath(new URL('../../', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** A throwaway TypeScript project in the system's temp directory. */
/**
 * A consumer's strictest usual settings, in a plain Node project (no DOM library: the SDK's types
 * must come from Node's own `fetch`), with the package names mapped to the SDK's sources.
 */
export const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    skipLibCheck: true,
    paths: {
      '@payments-api/sdk': [path.join(REPO_DIR, 'sdk/src/index.ts')],
      '@payments-api/sdk/node': [path.join(REPO_DIR, 'sdk/src/node.ts')],
    },
  },
  include: ['*.ts'],
};

export interface TypeScriptProject {
  dir: string;
  /** Runs tsc on the project; resolves to its diagnostics, one per line (empty when it compiles). */
  typecheck(): Promise<string>;
  remove(): void;
}

/**
 * Writes `files` (paths relative to the project, `tsconfig.json` among them) into a new temp
 * directory and returns the project. With `linkDependencies`, its `node_modules` is a link to the
 * repository's, so that `@types/node`, `express` and the like resolve as in a consumer's project.
 */
export function createTypeScriptProject(
  files: Record<string, string>,
  { linkDependencies }: { linkDependencies: boolean },
): TypeScriptProject {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-typescript-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  if (linkDependencies) fs.symlinkSync(path.join(REPO_DIR, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return {
    dir,
    typecheck: () => typecheck(dir),
    // rm does not follow the link: the repository's node_modules stays.
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Runs tsc on a project (a directory with a tsconfig.json, or a tsconfig file); resolves to its
 * diagnostics, one per line, or '' when it compiles. Not execFileSync: a test server may run in
 * this process and must keep answering meanwhile.
 */
export async function typecheck(project: string): Promise<string> {
  try {
    await promisify(execFile)(process.execPath, [TSC, '-p', project, '--pretty', 'false'], { encoding: 'utf8' });
    return '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    // tsc exits non-zero with its diagnostics on stdout; anything else (no output) is rethrown.
    if (!stdout && !stderr) throw error;
    return `${stdout ?? ''}${stderr ?? ''}`.trim();
  }
}
