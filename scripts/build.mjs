// `npm run build` (and `npm start`'s prebuild): the server and its command-line tools as bundles in
// dist/, which `npm start` and the tests run. A bundle is one file per entry plus the chunks the
// entries share: a process starts on a few files read once instead of some two thousand modules
// resolved and read one by one, which measured about half a second of CPU less per start.
//
// Bundled: our sources (transpiled only; `npm run typecheck` checks the types) and the libraries.
// Left to Node's own loading:
// - better-sqlite3, a native module;
// - express-openapi-validator, whose own module instances src/http/validator-*.ts adjust;
// - pino and pino-pretty, which can start workers from their own files;
// - what is not installed: the database drivers Knex names for engines this server does not use.
// Files read at run time (contracts, pages, docs) are found from the project's root
// (src/operations/project-files.ts), so they stay where they are checked out.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const KEPT_AS_MODULES = ['better-sqlite3', 'express-openapi-validator', 'pino', 'pino-pretty'];

/** Leaves a package that is not installed to be required at run time, where only its use would fail. */
const notInstalledStaysExternal = {
  name: 'not-installed-stays-external',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return undefined;
      try {
        createRequire(args.importer || path.join(ROOT, 'package.json')).resolve(args.path);
        return undefined;
      } catch {
        return { path: args.path, external: true };
      }
    });
  },
};

/** What the bundles are made from: a build is skipped when none of it changed since the last. */
const SOURCES = ['src', 'generated', 'sdk/src', 'package-lock.json', 'scripts/build.mjs'];
const STAMP = path.join(ROOT, 'dist/.built');

function newestChange(entry) {
  const stat = fs.statSync(path.join(ROOT, entry), { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(
    stat.mtimeMs,
    ...fs.readdirSync(path.join(ROOT, entry)).map((name) => newestChange(path.join(entry, name))),
  );
}

const builtAt = fs.statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (Math.max(...SOURCES.map(newestChange)) < builtAt) process.exit(0);
const startedAt = new Date();

const { outputFiles } = await build({
  absWorkingDir: ROOT,
  entryPoints: {
    server: 'src/main.ts',
    payments: 'src/cli/main.ts',
    'secrets-rotate': 'src/secrets-rotate-cli.ts',
  },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: KEPT_AS_MODULES,
  plugins: [notInstalledStaysExternal],
  // CommonJS libraries in an ES module bundle still call `require` (for Node's own modules).
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // For readable stack traces run with NODE_OPTIONS=--enable-source-maps.
  sourcemap: 'linked',
  logLevel: 'warning',
  write: false,
});

// Only files whose content changed are written, each beside its place and renamed into it: a
// server starting from dist/ while a build runs (another `npm start`, a test run) reads either
// the old file or the new one, never half of one, and an unchanged build touches nothing.
const written = new Set();
for (const file of outputFiles) {
  written.add(file.path);
  const current = fs.existsSync(file.path) ? fs.readFileSync(file.path) : undefined;
  if (current?.equals(file.contents)) continue;
  fs.mkdirSync(path.dirname(file.path), { recursive: true });
  const partial = `${file.path}.${process.pid}.tmp`;
  fs.writeFileSync(partial, file.contents);
  fs.renameSync(partial, file.path);
}
// Chunks are named by their content: those no entry of this build loads would only pile up.
const chunks = path.join(ROOT, 'dist/chunks');
for (const name of fs.existsSync(chunks) ? fs.readdirSync(chunks) : []) {
  // A `.tmp` file is another build's, being written.
  if (!written.has(path.join(chunks, name)) && !name.endsWith('.tmp'))
    fs.rmSync(path.join(chunks, name), { force: true });
}
// Stamped with the time the build began: a source saved during the build makes the next one run.
fs.writeFileSync(STAMP, '');
fs.utimesSync(STAMP, startedAt, startedAt);
