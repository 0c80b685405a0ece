import fs from 'node:fs';
import { loadConfig } from '../config.js';
import { databaseTarget, openDatabase } from '../db/open-database.js';
import { systemClock, unixSeconds } from '../domain/clock.js';
import { persistTrustedDocuments, trustedDocumentProblem } from './persisted-documents.js';

// `npm run graphql:persist -- path/to/*.graphql`: registers each file (one operation) as a trusted
// document in the configured database (DATABASE_URL / DATA_DIR, migrated first), all or none,
// and prints `sha256:<hex>  <file>` for each: the documentId that clients send.
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('Usage: npm run graphql:persist -- <file.graphql>...');
  process.exit(2);
}

/** Every file's text, or the first problem, named by its file, before the database is touched. */
function readDocuments(paths: string[]): string[] {
  return paths.map((file) => {
    const source = fs.readFileSync(file, 'utf8');
    const problem = trustedDocumentProblem(source);
    if (problem) throw new Error(`${file}: ${problem}`);
    return source;
  });
}

try {
  const sources = readDocuments(files);
  const db = await openDatabase(databaseTarget(loadConfig()));
  try {
    const ids = await persistTrustedDocuments(db, sources, unixSeconds(systemClock));
    ids.forEach((id, index) => console.log(`${id}  ${files[index]}`));
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(`Nothing was registered. ${(error as Error).message}`);
  process.exitCode = 1;
}
