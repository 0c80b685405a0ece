/**
 * Compares two versions of the GraphQL contract with graphql-inspector, the library
 * `npm run graphql:breaking` runs, for a release: what kind of version the changes call for, and
 * their changelog lines.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';

/** The GraphQL contract being edited, and the copy released to clients (`npm run graphql:breaking` compares them). */
export const GRAPHQL_FILES = {
  current: fileURLToPath(new URL('../graphql/schema.graphql', import.meta.url)),
  published: fileURLToPath(new URL('../graphql/schema.published.graphql', import.meta.url)),
};

/** What changed between two versions of the GraphQL contract, as graphql-inspector says it. */
export interface GraphQLDiff {
  changes: Change[];
}

/** The differences from the published schema file to the current one. */
export async function compareGraphQLFiles(published: string, current: string): Promise<GraphQLDiff> {
  const read = (file: string) => buildSchema(fs.readFileSync(file, 'utf8'));
  return { changes: await diff(read(published), read(current)) };
}

/** Whether a change only documents (a description added, changed or removed). */
function isDocumentation(change: Change): boolean {
  return String(change.type).includes('DESCRIPTION');
}

/**
 * The part of the version the GraphQL changes call for, by the rule of the REST contract: major
 * when one breaks clients, minor for any other change of the schema, patch when only descriptions
 * changed; none when nothing did.
 */
export function graphqlReleaseKind({ changes }: GraphQLDiff): 'major' | 'minor' | 'patch' | undefined {
  if (changes.some((c) => c.criticality.level === CriticalityLevel.Breaking)) return 'major';
  if (changes.some((c) => !isDocumentation(c))) return 'minor';
  return changes.length > 0 ? 'patch' : undefined;
}

/** The changelog's GraphQL section: one line per change, breaking ones marked; empty when nothing changed. */
export function graphqlChangelogSection({ changes }: GraphQLDiff): string {
  if (changes.length === 0) return '';
  const label = (c: Change) => (c.criticality.level === CriticalityLevel.Breaking ? '**Breaking**: ' : isDocumentation(c) ? 'Documentation: ' : '');
  return ['### GraphQL', '', ...changes.map((c) => `- ${label(c)}${c.message}`), ''].join('\n');
}
