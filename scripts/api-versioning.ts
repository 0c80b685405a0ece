/**
 * Releasing the contract: the SDK's next version by the kind of change (semver), a changelog
 * entry generated from the difference, and the new published contract.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONTRACT_FILES, compareContractFiles, hasBreaking, type ContractDiff } from './api-diff.js';
import { changelogEntry } from './api-report.js';

/** Which part of the version a release bumps. */
export type ReleaseKind = 'major' | 'minor' | 'patch';

/** The files a release reads and writes. */
export interface ReleaseFiles {
  /** The contract being released. */
  current: string;
  /** The released contract, overwritten with `current`. */
  published: string;
  /** The SDK's package.json, whose version is bumped. */
  sdkPackage: string;
  /** The changelog the entry is added to (created when missing). */
  changelog: string;
}

/** The repository's own files. */
export const REPOSITORY_FILES: ReleaseFiles = {
  ...CONTRACT_FILES,
  sdkPackage: fileURLToPath(new URL('../sdk/package.json', import.meta.url)),
  changelog: fileURLToPath(new URL('../CHANGELOG.md', import.meta.url)),
};

/** What a release did. */
export interface Release {
  kind: ReleaseKind;
  previousVersion: string;
  version: string;
  diff: ContractDiff;
}

const CHANGELOG_HEADER = `# Changelog

Releases of the SDK (\`@payments-api/sdk\`) and of the REST contract it is generated from. Each
entry is written by \`npm run api:release\` from the difference between the published contract
(\`openapi/openapi.published.yaml\`) and the one released (\`openapi/openapi.yaml\`).
`;

/**
 * The part of the version a difference calls for: major when a change breaks clients, minor when
 * something was added, relaxed or deprecated, patch when only documentation changed; none when
 * nothing did.
 */
export function releaseKind(diff: ContractDiff): ReleaseKind | undefined {
  if (hasBreaking(diff)) return 'major';
  if (diff.counts['non-breaking'] > 0 || diff.counts.deprecated > 0) return 'minor';
  if (diff.counts.annotation > 0) return 'patch';
  return undefined;
}

/** `1.4.2` bumped: major → `2.0.0`, minor → `1.5.0`, patch → `1.4.3`. Only plain versions are released. */
export function bumpVersion(version: string, kind: ReleaseKind): string {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`the SDK's version ${JSON.stringify(version)} is not MAJOR.MINOR.PATCH`);
  const [major, minor, patch] = match.slice(1).map(Number);
  if (kind === 'major') return `${major + 1}.0.0`;
  if (kind === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** The changelog with the entry put first, below the header. */
function withEntry(changelog: string | undefined, entry: string): string {
  const text = changelog ?? CHANGELOG_HEADER;
  const first = text.search(/^## /m);
  if (first === -1) return `${text.trimEnd()}\n\n${entry}`;
  return `${text.slice(0, first)}${entry}\n${text.slice(first)}`;
}

/**
 * Releases the current contract: bumps the SDK's version by the kind of change, adds the
 * changelog entry dated `date` (YYYY-MM-DD), and copies the contract over the published one.
 * Throws, writing nothing, when the contracts do not differ.
 */
export function release(files: ReleaseFiles, date: string): Release {
  const diff = compareContractFiles(files.published, files.current);
  const kind = releaseKind(diff);
  if (!kind) throw new Error(`nothing to release: ${files.current} does not differ from the published contract`);

  const sdkPackage = JSON.parse(fs.readFileSync(files.sdkPackage, 'utf8')) as { version: string };
  const previousVersion = sdkPackage.version;
  const version = bumpVersion(previousVersion, kind);
  const changelog = fs.existsSync(files.changelog) ? fs.readFileSync(files.changelog, 'utf8') : undefined;

  fs.writeFileSync(files.sdkPackage, `${JSON.stringify({ ...sdkPackage, version }, null, 2)}\n`);
  fs.writeFileSync(files.changelog, withEntry(changelog, changelogEntry(diff, version, date)));
  fs.copyFileSync(files.current, files.published);
  return { kind, previousVersion, version, diff };
}
