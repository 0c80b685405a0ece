/**
 * The contract's differences as text: the list of breaking changes CI prints, the one-line
 * summary when nothing breaks, and a changelog entry.
 */
import type { DiffType } from 'api-smart-diff';
import type { Change } from './api-changes.js';
import { isBreaking, type ChangeGroup, type ContractDiff } from './api-diff.js';

/** How the changes of each type are headed in a changelog entry, in the order they appear. */
const CHANGELOG_SECTIONS: ReadonlyArray<[DiffType, string]> = [
  ['breaking', 'Breaking'],
  ['unclassified', 'Unclassified (released as breaking)'],
  ['non-breaking', 'Added and relaxed'],
  ['deprecated', 'Deprecated'],
  ['annotation', 'Documentation'],
];

/** How many operations a changelog line names before "and N more". */
const NAMED_IN_CHANGELOG = 6;

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** `response 400`, `response 401` → `responses 400, 401`; anything else is listed as it is. */
function joinLocations(locations: readonly string[]): string {
  const unique = [...new Set(locations)];
  const codes = unique.map((l) => /^response (\S+)$/.exec(l)?.[1]);
  if (unique.length > 1 && codes.every((c) => c !== undefined)) return `responses ${codes.join(', ')}`;
  return unique.join(', ');
}

/** One line per operation a group reaches: its locations, gathered by field. */
function usesByScope(uses: readonly Change[]): string[] {
  const scopes = new Map<string, Map<string, string[]>>();
  for (const use of uses) {
    const fields = scopes.get(use.scope) ?? new Map<string, string[]>();
    scopes.set(use.scope, fields);
    const field = use.field ?? '';
    fields.set(field, [...(fields.get(field) ?? []), ...(use.location ? [use.location] : [])]);
  }
  return [...scopes].map(([scope, fields]) => {
    const parts = [...fields].map(([field, locations]) => [joinLocations(locations), field && `\`${field}\``].filter(Boolean).join(' '));
    const detail = parts.filter(Boolean).join('; ');
    return detail ? `${scope}: ${detail}` : scope;
  });
}

function breakingGroup(group: ChangeGroup): string[] {
  const lines = usesByScope(group.uses);
  const label = group.type === 'unclassified' ? ' (unclassified: counted as breaking)' : '';
  return [`✗ ${group.what}${label}`, `    at ${group.origin}`, ...lines.map((line) => `    ${line}`)];
}

/** The one-line count of what changed: "2 non-breaking, 0 deprecated, 1 annotation". */
export function countLine(diff: ContractDiff): string {
  const { counts } = diff;
  return `${counts['non-breaking']} non-breaking, ${counts.deprecated} deprecated, ${plural(counts.annotation, 'annotation')}`;
}

/**
 * What `npm run api:breaking` prints: each breaking change with the JSON pointer where it was
 * made and every operation it reaches, or one line when there is none.
 */
export function breakingReport(diff: ContractDiff, publishedName: string): string {
  const breaking = diff.groups.filter((g) => isBreaking(g.type));
  if (breaking.length === 0) return `REST contract: no breaking change against ${publishedName} (${countLine(diff)}).`;
  return [
    `REST contract: ${plural(breaking.length, 'breaking change')} against ${publishedName}:`,
    '',
    ...breaking.flatMap((group) => [...breakingGroup(group), '']),
    `Also ${countLine(diff)}. Undo the change, or release it as a new major version with npm run api:release.`,
  ].join('\n');
}

/** The operations (or webhooks, or schemas) a group reaches, by name, at most a few. */
function reaches(group: ChangeGroup): string {
  const names = [...new Set(group.uses.map((u) => (u.scope === 'components' ? (u.location ?? u.scope) : u.scope.split(' (')[0])))];
  const shown = names.slice(0, NAMED_IN_CHANGELOG).join(', ');
  return names.length > NAMED_IN_CHANGELOG ? `${shown} and ${names.length - NAMED_IN_CHANGELOG} more` : shown;
}

/** A changelog entry: the version, the date, and the changes grouped by kind. */
export function changelogEntry(diff: ContractDiff, version: string, date: string): string {
  const sections = CHANGELOG_SECTIONS.flatMap(([type, heading]) => {
    const groups = diff.groups.filter((g) => g.type === type);
    if (groups.length === 0) return [];
    return [`### ${heading}`, '', ...groups.map((g) => `- ${g.what} (\`${g.origin}\`): ${reaches(g)}.`), ''];
  });
  return [`## ${version} (${date})`, '', ...sections].join('\n');
}
