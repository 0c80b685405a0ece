import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** Where the REST contract lives. */
export const SPEC_PATH = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));

/** A parsed OpenAPI document (only the parts this service reads are typed). */
export interface SpecDocument {
  paths: Record<string, Record<string, SpecOperation | unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export interface SpecOperation {
  operationId: string;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
}

let cached: SpecDocument | undefined;

/** The spec, parsed once per process. Callers that mutate must clone it. */
export function loadSpec(): SpecDocument {
  cached ??= parse(fs.readFileSync(SPEC_PATH, 'utf8')) as SpecDocument;
  return cached;
}
