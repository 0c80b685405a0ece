/**
 * `npm run api:release`: releases openapi/openapi.yaml. Bumps the SDK's version by the kind of
 * change (breaking → major, non-breaking → minor, documentation only → patch), adds the
 * CHANGELOG.md entry, and makes it the published contract. Refuses when nothing changed.
 */
import { countLine } from './api-report.js';
import { REPOSITORY_FILES, release } from './api-versioning.js';

try {
  const today = new Date().toISOString().slice(0, 10);
  const done = release(REPOSITORY_FILES, today);
  console.log(
    `Released @payments-api/sdk ${done.version} (${done.kind}, from ${done.previousVersion}): ` +
      `${done.diff.counts.breaking + done.diff.counts.unclassified} breaking, ${countLine(done.diff)}. ` +
      'Updated sdk/package.json, CHANGELOG.md and openapi/openapi.published.yaml; review and commit them.',
  );
} catch (error) {
  console.error(`api:release: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
