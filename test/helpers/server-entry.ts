import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The arguments of `node` that run a script of the server as `npm start` runs `src/main.ts`:
 * compiled, from `dist/` (built before every run by build-server.cjs). `script` is given by its
 * source path (`src/main.ts`); the result names the compiled file by its absolute path, so it
 * runs from any working directory.
 */
export function compiledScript(script: string): string[] {
  return [path.join(ROOT, 'dist', script.replace(/\.ts$/, '.js'))];
}
