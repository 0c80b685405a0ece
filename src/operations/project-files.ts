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
 * runs from `src/` under tsx and from a bundle in `dist/` (`npm start`), while the files
 * stay where they are checked out.
 */
export function projectFile(relativePath: string): string {
  return path.join(ROOT, relativePath);
}

/**
 * The absolute path of a contract file (`openapi/openapi.yaml`, `graphql/schema.graphql`): under
 * `CONTRACT_DIR` when it is set, otherwise the project's own. `npm run dev` sets it to a copy of
 * the last contracts that passed its checks, so that a restart while the file being edited is
 * broken still serves the last good contract.
 */
export function contractFile(relativePath: string): string {
  const dir = process.env.CONTRACT_DIR;
  return dir ? path.resolve(dir, relativePath) : projectFile(relativePath);
}
