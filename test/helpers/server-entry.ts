import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The bundle scripts/build.mjs makes of each entry the tests start as a process. */
const BUNDLES: Record<string, string> = {
  'src/main.ts': 'dist/server.mjs',
  'src/cli/main.ts': 'dist/payments.mjs',
  'src/secrets-rotate-cli.ts': 'dist/secrets-rotate.mjs',
};

/**
 * The arguments of `node` that run a script of the server as `npm start` runs `src/main.ts`:
 * bundled, from `dist/` (built before every run by build-server.cjs). `script` is given by its
 * source path (`src/main.ts`); the result names the bundle by its absolute path, so it runs from
 * any working directory.
 */
export function compiledScript(script: string): string[] {
  const bundle = BUNDLES[script];
  if (!bundle)
    throw new Error(`${script} is not bundled: add it to scripts/build.mjs and to BUNDLES here`);
  return [path.join(ROOT, bundle)];
}
