#!/usr/bin/env node
// Runs every generator, then formats their output with the project's pinned prettier, so that
// `npm run generate && git diff --exit-code generated sdk/src/generated` proves the code is fresh.
import { execFileSync } from 'node:child_process';

const bin = (name) => `node_modules/.bin/${name}`;
const run = (cmd, args) => execFileSync(bin(cmd), args, { stdio: ['ignore', 'ignore', 'inherit'] });

run('openapi-typescript', ['openapi/openapi.yaml', '-o', 'generated/openapi.ts']);
run('orval', ['--config', 'orval.config.ts']);
execFileSync(process.execPath, ['scripts/generate-sdk-events.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
run('graphql-codegen', ['--config', 'codegen.ts', '--silent']);
run('prettier', ['--log-level', 'warn', '--write', 'generated', 'sdk/src/generated']);
