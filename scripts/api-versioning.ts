/**
 * Releasing the contracts: the next version by the kind of change (semver), a changelog entry
 * generated from the differences, and the new published contracts (REST and GraphQL).
 *
 * There is one version: the SDK's (`sdk/package.json`) is the REST contract's `info.version`, the
 * published contract's, and the one in the file name of the packed SDK that its README installs.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument, Scalar } from 'yaml';
import { CONTRACT_FILES, compareContractFiles, hasBreaking, type ContractDiff } from './api-diff.js';
import { changelogEntry } from './api-report.js';
import { compareGraphQLFiles, GRAPHQL_FILES, graphqlChangelogSection, graphqlReleaseKind, type GraphQLDiff } from './graphql-diff.js';

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
  /** The SDK's README, whose install lines name the packed file, `payments-api-sdk-<version>.tgz`. */
  sdkReadme: string;
  /** The GraphQL contract being released. */
  graphqlCurrent: string;
  /** The released GraphQL contract, overwritten with `graphqlCurrent`. */
  graphqlPublished: string;
}

/** The repository's own files. */
export const REPOSITORY_FILES: ReleaseFiles = {
  ...CONTRACT_FILES,
  sdkPackage: fileURLToPath(new URL('../sdk/package.json', import.meta.url)),
  changelog: fileURLToPath(new URL('../CHANGELOG.md', import.meta.url)),
  sdkReadme: fileURLToPath(new URL('../sdk/README.md', import.meta.url)),
  graphqlCurrent: GRAPHQL_FILES.current,
  graphqlPublished: GRAPHQL_FILES.published,
};

/** What a release did. */
export interface Release {
  kind: ReleaseKind;
  previousVersion: string;
  version: string;
  diff: ContractDiff;
  graphql: GraphQLDiff;
}

/** The file name `npm pack` gives the SDK at a version (the scope's `@` dropped, its `/` a dash). */
export function packedFileName(version: string): string {
  return `payments-api-sdk-${version}.tgz`;
}

/** The spec's text with `info.version` set, the rest byte for byte as it was (comments, anchors, layout). */
export function withSpecVersion(specText: string, version: string): string {
  const node = parseDocument(specText).getIn(['info', 'version'], true);
  if (!(node instanceof Scalar) || !node.range) throw new Error('the spec has no info.version to set');
  return `${specText.slice(0, node.range[0])}${version}${specText.slice(node.range[1])}`;
}

const CHANGELOG_HEADER = `# Changelog

Releases of the SDK (\`@payments-api/sdk\`) and of the contracts: the REST one it is generated
from, and the GraphQL one. Each entry is written by \`npm run api:release\` from the differences
between the published contracts (\`openapi/openapi.published.yaml\`,
\`graphql/schema.published.graphql\`) and the ones released.
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

const KIND_ORDER: readonly ReleaseKind[] = ['patch', 'minor', 'major'];

/** The larger of two kinds of release (major > minor > patch). */
function larger(a: ReleaseKind | undefined, b: ReleaseKind | undefined): ReleaseKind | undefined {
  if (!a || !b) return a ?? b;
  return KIND_ORDER.indexOf(a) > KIND_ORDER.indexOf(b) ? a : b;
}

/**
 * Releases the current contracts: bumps the version by the kind of change of either contract,
 * sets it in the SDK's package.json, the spec's `info.version` and the SDK README's install
 * lines, adds the changelog entry dated `date` (YYYY-MM-DD), and copies each contract over its
 * published copy. Throws, writing nothing, when neither contract differs from its published copy.
 */
export async function release(files: ReleaseFiles, date: string): Promise<Release> {
  const diff = compareContractFiles(files.published, files.current);
  const graphql = await compareGraphQLFiles(files.graphqlPublished, files.graphqlCurrent);
  const kind = larger(releaseKind(diff), graphqlReleaseKind(graphql));
  if (!kind) throw new Error(`nothing to release: neither ${files.current} nor ${files.graphqlCurrent} differs from its published copy`);

  const sdkPackage = JSON.parse(fs.readFileSync(files.sdkPackage, 'utf8')) as { version: string };
  const previousVersion = sdkPackage.version;
  const version = bumpVersion(previousVersion, kind);
  const changelog = fs.existsSync(files.changelog) ? fs.readFileSync(files.changelog, 'utf8') : undefined;
  const readme = fs.readFileSync(files.sdkReadme, 'utf8');

  fs.writeFileSync(files.sdkPackage, `${JSON.stringify({ ...sdkPackage, version }, null, 2)}\n`);
  fs.writeFileSync(files.current, withSpecVersion(fs.readFileSync(files.current, 'utf8'), version));
  fs.writeFileSync(files.sdkReadme, readme.replaceAll(/payments-api-sdk-\d+\.\d+\.\d+\.tgz/g, packedFileName(version)));
  fs.writeFileSync(files.changelog, withEntry(changelog, changelogEntry(diff, version, date) + graphqlChangelogSection(graphql)));
  fs.copyFileSync(files.current, files.published);
  fs.copyFileSync(files.graphqlCurrent, files.graphqlPublished);
  return { kind, previousVersion, version, diff, graphql };
}
