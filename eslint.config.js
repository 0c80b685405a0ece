// Code lint: ESLint's and typescript-eslint's recommended rules, and the architecture's layers
// (see docs/architecture.md): a folder imports only folders below it, and only `src/db/` knows
// the SQL dialect. Generated code is not linted.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The folders of `src/`, lowest first. A folder may import its own layer and those before it,
 * never one after it; the files at the top of `src/` (entry points, configuration, composition)
 * stand above every folder and no folder imports them.
 */
const LAYERS = [
  ['domain', 'logging'],
  ['db'],
  ['operations'],
  // `pages`: what every HTML page shares (the header and its stylesheet); the page folders above use it.
  ['resources', 'pages'],
  // `cli`, the `payments` command, is a client of the server: it reaches it through the SDK, and
  // shares only what lies below the doors (ids, the webhook signing).
  ['auth', 'webhooks', 'live-events', 'cli'],
  ['http'],
  ['graphql'],
  ['metrics', 'dashboard', 'docs'],
];

const ROOT_MODULES = ['app', 'main', 'config', 'composition', 'bootstrap', 'startup-failure'];
const DRIVERS = ['pg', 'better-sqlite3', 'knex'];
/** The folders that are neither the HTTP edge nor a door, and so never see Express. */
const WITHOUT_EXPRESS = ['domain', 'logging', 'db', 'operations', 'pages', 'resources', 'webhooks', 'live-events', 'cli'];

const folderImport = (folders) => ({
  regex: `^(\\.\\./)+(${folders.join('|')})/`,
  message: 'A folder imports only the layers below it (eslint.config.js LAYERS): this one is above.',
});

/** One `no-restricted-imports` setting per folder: flat config replaces, not merges, a rule's options. */
const layerRules = LAYERS.flatMap((layer, index) => {
  const above = LAYERS.slice(index + 1).flat();
  return layer.map((folder) => {
    const patterns = [
      {
        regex: `^(\\.\\./)+(${ROOT_MODULES.join('|')})\\.js$`,
        message: 'Entry points, configuration and the composition root sit above every folder: pass what is needed in.',
      },
    ];
    if (above.length > 0) patterns.push(folderImport(above));
    const paths = [];
    if (folder !== 'db') {
      for (const name of DRIVERS) paths.push({ name, message: 'Only src/db/ talks to a database driver.' });
    }
    if (WITHOUT_EXPRESS.includes(folder)) paths.push({ name: 'express', message: 'Only the doors (http/, graphql/) see Express.' });
    return {
      files: [`src/${folder}/**/*.ts`],
      ignores: ['src/**/*-cli.ts'],
      rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
    };
  });
});

/** A comparison with an engine's name is a dialect check, which belongs in src/db/. */
const DIALECT_CHECKS = [
  {
    selector: "BinaryExpression[operator=/^[!=]==?$/] > Literal[value=/^(postgres|sqlite|pg|better-sqlite3)$/]",
    message: 'Dialect checks live in src/db/: add a function there instead of branching on the engine.',
  },
  {
    selector: "SwitchCase > Literal[value=/^(postgres|sqlite)$/]",
    message: 'Dialect checks live in src/db/: add a function there instead of branching on the engine.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'generated/', 'sdk/src/generated/', 'sdk/dist/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...layerRules,
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**'],
    rules: { 'no-restricted-syntax': ['error', ...DIALECT_CHECKS] },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
