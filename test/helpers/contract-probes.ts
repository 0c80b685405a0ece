/**
 * Edited copies of today's REST contract, for the tests of the breaking-change check and of the
 * release (test/contract/api-*.test.ts): each probe compares the spec as it is with a copy that
 * one edit changed.
 */
import { expect } from 'chai';
import {
  CONTRACT_FILES,
  compareContracts,
  readContract,
  type ContractDiff,
} from '../../scripts/api-diff.js';
import { breakingReport } from '../../scripts/api-report.js';

/** The spec as a loosely typed tree, for editing a copy. */
export type Spec = Record<string, any>;

/** One edit of the spec, made on a copy. */
export type SpecEdit = (copy: Spec) => void;

/** Today's spec, read once per file that imports this. */
export const todaysSpec = readContract(CONTRACT_FILES.current) as Spec;

/** Removes a field from a schema's properties and from its required list. */
export function removeField(schema: Spec, field: string): void {
  delete schema.properties[field];
  schema.required = schema.required.filter((name: string) => name !== field);
}

/** A copy of today's spec with one edit. */
export function editedSpec(edit: SpecEdit): Spec {
  const copy = structuredClone(todaysSpec);
  edit(copy);
  return copy;
}

/**
 * Compares today's spec with a copy edited by `edit`, in memory: reading the files back is what
 * the command's own tests cover, and it would cost each probe two parses of the spec.
 */
export function probe(edit: SpecEdit): { diff: ContractDiff; report: string } {
  const diff = compareContracts(structuredClone(todaysSpec) as never, editedSpec(edit) as never);
  return { diff, report: breakingReport(diff, 'published.yaml') };
}

/**
 * The spec's text with `nickname` (nullable, optional) added to Customer and to its example, which
 * the lint requires and which lists and events reuse through a YAML alias.
 */
export function withNickname(text: string): string {
  // The example's last field, and the property the field goes after (each once in the spec).
  const example = 'test_clock: null }';
  const property =
    "        metadata: { $ref: '#/components/schemas/Metadata' }\n        address: { oneOf:";
  expect(text.split(example)).to.have.length(2);
  expect(text.split(property)).to.have.length(2);
  return text
    .replace(example, 'test_clock: null, nickname: null }')
    .replace(
      property,
      "        metadata: { $ref: '#/components/schemas/Metadata' }\n        nickname: { type: [string, 'null'], maxLength: 100 }\n        address: { oneOf:",
    );
}
