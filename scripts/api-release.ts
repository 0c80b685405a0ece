/**
 * `npm run api:release`: releases openapi/openapi.yaml and graphql/schema.graphql. Bumps the one
 * version by the kind of change (breaking → major, non-breaking → minor, documentation only →
 * patch) in sdk/package.json, the spec's `info.version` and the SDK README's install lines, adds
 * the CHANGELOG.md entry, makes both contracts the published ones, and regenerates the code (the
 * SDK carries the spec's version). Refuses when nothing changed.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { countLine } from './api-report.js';
import { REPOSITORY_FILES, release } from './api-versioning.js';

try {
  const today = new Date().toISOString().slice(0, 10);
  const done = await release(REPOSITORY_FILES, today);
  execFileSync(process.execPath, ['scripts/generate.mjs'], { cwd: path.resolve(import.meta.dirname, '..'), stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(
    `Released ${done.version} (${done.kind}, from ${done.previousVersion}). ` +
      `REST: ${done.diff.counts.breaking + done.diff.counts.unclassified} breaking, ${countLine(done.diff)}; ` +
      `GraphQL: ${done.graphql.changes.length} changes. ` +
      'Updated sdk/package.json, sdk/README.md, openapi/openapi.yaml (info.version), CHANGELOG.md, ' +
      'openapi/openapi.published.yaml, graphql/schema.published.graphql and the generated code; review and commit them.',
  );
} catch (error) {
  console.error(`api:release: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
