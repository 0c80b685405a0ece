#!/usr/bin/env node
// Runs every generator, then formats their output with the project's pinned prettier, so that
// `npm run generate && git diff --exit-code generated sdk/src/generated` proves the code is fresh.
// `--only openapi` or `--only graphql` runs the generators of one contract and formats only their
// output: `npm run dev` uses it when a save changed one contract and not the other.
import { execFileSync } from 'node:child_process';

const bin = (name) => `node_modules/.bin/${name}`;
const run = (cmd, args) => execFileSync(bin(cmd), args, { stdio: ['ignore', 'ignore', 'inherit'] });

const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1];
if (only !== undefined && only !== 'openapi' && only !== 'graphql') {
  console.error(`generate: --only takes openapi or graphql, not ${only}`);
  process.exit(2);
}

/** Each contract's generators and the files they write. */
const SIDES = {
  openapi: {
    generate() {
      run('openapi-typescript', ['openapi/openapi.yaml', '-o', 'generated/openapi.ts']);
      run('orval', ['--config', 'orval.config.ts']);
      execFileSync(process.execPath, ['scripts/generate-sdk-events.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
    },
    outputs: ['generated/openapi.ts', 'sdk/src/generated'],
  },
  graphql: {
    generate: () => run('graphql-codegen', ['--config', 'codegen.ts', '--silent']),
    outputs: ['generated/graphql.ts'],
  },
};

const sides = only === undefined ? Object.values(SIDES) : [SIDES[only]];
for (const side of sides) side.generate();
run('prettier', ['--log-level', 'warn', '--write', ...sides.flatMap((side) => side.outputs)]);
