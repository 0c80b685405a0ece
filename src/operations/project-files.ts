import fs from 'node:fs';
import path from 'node:path';

/** The nearest folder at or above `from` that holds a package.json: the project's root. */
function projectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json in ${from} or above it`);
  }
}

const ROOT = projectRoot(import.meta.dirname);

/**
 * The absolute path of a file the server reads at run time (a contract, a page), given from the
 * project's root. Found from the root rather than from the reading module, because the module
 * runs from `src/` under tsx and from `dist/src/` once compiled (`npm start`), while the files
 * stay where they are checked out.
 */
export function projectFile(relativePath: string): string {
  return path.join(ROOT, relativePath);
}
