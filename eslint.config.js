// Code lint: ESLint's and typescript-eslint's recommended rules, and the architecture's layers
// (see docs/architecture.md): a folder imports only folders below it, the folders of
// `src/resources/` too, and only `src/db/` knows the SQL dialect. Generated code is not linted.
import fs from 'node:fs';
import { URL } from 'node:url';
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
  ['edge'],
  ['http'],
  ['graphql'],
  // `customer-pages`: what a merchant's customer opens (the authentication page of a redirect).
  ['metrics', 'dashboard', 'docs', 'customer-pages'],
];

/**
 * The folders of `src/resources/`, lowest first, layered as `src/` is: a folder imports only the
 * layers before its own, never a folder of its own layer, so no two folders import each other
 * (a cycle), however long the way round. `payments` is the payment core (attempts,
 * authorisations, the allowed moves of an intent, and the charge, intent and refund rows they
 * write); the payment resources above it are handlers and services over it.
 */
const RESOURCE_LAYERS = [
  ['shared'],
  ['accounts'],
  // An account's settings and logs.
  ['client-certificates', 'oauth', 'signing-keys', 'request-logs', 'webhook-endpoints'],
  // Every change records its events, with their deliveries (the outbox).
  ['events'],
  ['webhook-deliveries', 'customers', 'users'],
  ['payments', 'orders'],
  ['charges', 'payment-intents', 'payment-methods', 'refunds', 'setup-intents'],
];

const ROOT_MODULES = ['app', 'main', 'config', 'composition', 'bootstrap', 'startup-failure'];
const DRIVERS = ['pg', 'better-sqlite3', 'knex'];
/** The folders that are neither the HTTP edge nor a door, and so never see Express. */
const WITHOUT_EXPRESS = ['domain', 'logging', 'db', 'operations', 'pages', 'resources', 'webhooks', 'live-events', 'cli'];

const folderImport = (folders) => ({
  regex: `^(\\.\\./)+(${folders.join('|')})/`,
  message: 'A folder imports only the layers below it (eslint.config.js LAYERS): this one is above.',
});

/** What a folder of `src/` may not import: the layers above it, the entry points, a driver, Express. */
function restrictions(folder, above) {
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
  return { paths, patterns };
}

/** A folder of `src/resources/` that is not placed in RESOURCE_LAYERS could join a cycle unseen. */
const unplaced = fs
  .readdirSync(new URL('./src/resources/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !RESOURCE_LAYERS.flat().includes(entry.name))
  .map((entry) => entry.name);
if (unplaced.length > 0) throw new Error(`eslint.config.js: place src/resources/${unplaced.join(', ')} in RESOURCE_LAYERS`);

/** The folders of `src/resources/` one of them may not import: its own layer's others and those above. */
const resourcePatterns = RESOURCE_LAYERS.flatMap((layer, index) => {
  const refused = [...layer, ...RESOURCE_LAYERS.slice(index + 1).flat()];
  return layer.map((folder) => ({
    folder,
    pattern: {
      regex: `^\\.\\./(${refused.filter((other) => other !== folder).join('|')})/`,
      message:
        'A resource folder imports only the resource layers below its own (eslint.config.js RESOURCE_LAYERS): ' +
        'this one is beside or above it, and the two would make a cycle.',
    },
  }));
});

/** One `no-restricted-imports` setting per folder: flat config replaces, not merges, a rule's options. */
const layerRules = LAYERS.flatMap((layer, index) => {
  const above = LAYERS.slice(index + 1).flat();
  return layer.flatMap((folder) => {
    const { paths, patterns } = restrictions(folder, above);
    const rule = (extra) => ({ 'no-restricted-imports': ['error', { paths, patterns: [...patterns, ...extra] }] });
    const whole = { files: [`src/${folder}/**/*.ts`], ignores: ['src/**/*-cli.ts'], rules: rule([]) };
    if (folder !== 'resources') return [whole];
    // Each resource folder adds its own refusals to the layer's, in a block of its own.
    return [
      whole,
      ...resourcePatterns.map(({ folder: resource, pattern }) => ({
        files: [`src/resources/${resource}/**/*.ts`],
        rules: rule([pattern]),
      })),
    ];
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
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
