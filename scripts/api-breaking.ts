/**
 * `npm run api:breaking`: fails, listing what broke, when openapi/openapi.yaml breaks clients of
 * the published contract (openapi/openapi.published.yaml); prints one line otherwise. Two file
 * arguments, `<published> <current>`, compare other files instead.
 */
import path from 'node:path';
import { CONTRACT_FILES, compareContractFiles, hasBreaking } from './api-diff.js';
import { breakingReport } from './api-report.js';

const [published = CONTRACT_FILES.published, current = CONTRACT_FILES.current] = process.argv.slice(2);
const diff = compareContractFiles(published, current);
const report = breakingReport(diff, path.relative(process.cwd(), published));
if (hasBreaking(diff)) {
  console.error(report);
  process.exitCode = 1;
} else {
  console.log(report);
}
