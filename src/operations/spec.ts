import fs from 'node:fs';
import { parse } from 'yaml';
import { contractFile } from './project-files.js';

/** Where the REST contract lives. */
export const SPEC_PATH = contractFile('openapi/openapi.yaml');

/** A parsed OpenAPI document (only the parts this service reads are typed). */
export interface SpecDocument {
  paths: Record<string, Record<string, SpecOperation | unknown>>;
  components: Record<string, Record<string, unknown>>;
  /** The security requirements of operations that declare none of their own. */
  security?: SecurityRequirement[];
  [key: string]: unknown;
}

/** One way to authenticate: each named scheme, with the scopes (roles) it must hold. */
export type SecurityRequirement = Record<string, string[]>;

export interface SpecOperation {
  operationId: string;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  security?: SecurityRequirement[];
}

let cached: SpecDocument | undefined;

/** The spec, parsed once per process. Callers that mutate must clone it. */
export function loadSpec(): SpecDocument {
  cached ??= parse(fs.readFileSync(SPEC_PATH, 'utf8')) as SpecDocument;
  return cached;
}
