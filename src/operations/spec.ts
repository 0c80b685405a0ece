import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { contractFile, projectFile } from './project-files.js';

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
/** The SHA-256 of the spec's text, once read. */
let specHash: string | undefined;

/** The spec, parsed once per process. Callers that mutate must clone it. */
export function loadSpec(): SpecDocument {
  cached ??= parseSpec(fs.readFileSync(SPEC_PATH, 'utf8'));
  return cached;
}

/**
 * Where parsed specs are kept between processes, by the hash of their text: the usual cache
 * folder of tools run from a project (`node_modules/.cache`).
 */
const PARSED_CACHE_DIR = projectFile('node_modules/.cache/payments-api/spec');

/**
 * The spec's YAML as a document. Parsing the YAML takes about 0.4 s of CPU, the largest part of a
 * process's start; reading the same text's JSON takes a few milliseconds. So the parse is kept as
 * JSON under the text's SHA-256, and a process whose spec is unchanged since the last start (every
 * cluster child, every restart, every test process) reads that. A text not seen before is parsed
 * (a spec that does not parse fails here, as without the cache); a cache that cannot be read or
 * written is passed by.
 */
function parseSpec(text: string): SpecDocument {
  specHash = createHash('sha256').update(text).digest('hex');
  const cachedFile = path.join(PARSED_CACHE_DIR, `${specHash}.json`);
  try {
    return JSON.parse(fs.readFileSync(cachedFile, 'utf8')) as SpecDocument;
  } catch {
    // Not parsed before (or unreadable): parse it below.
  }
  const spec = parse(text) as SpecDocument;
  try {
    fs.mkdirSync(PARSED_CACHE_DIR, { recursive: true });
    forgetOldestParses();
    // Written aside then renamed, so a process starting meanwhile never reads half a file.
    const partial = `${cachedFile}.${process.pid}.tmp`;
    fs.writeFileSync(partial, JSON.stringify(spec));
    fs.renameSync(partial, cachedFile);
  } catch {
    // A read-only install: every start parses.
  }
  return spec;
}

/** How many parsed specs are kept: a designer's recent edits; each is about a quarter megabyte. */
const KEPT_PARSES = 8;

/** Deletes all but the newest few parses (and what is known of them), so that a long editing session does not fill the disk. */
function forgetOldestParses(): void {
  const files = fs
    .readdirSync(PARSED_CACHE_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => path.join(PARSED_CACHE_DIR, name));
  const newestFirst = files
    .map((file) => ({ file, mtime: fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { file } of newestFirst.slice(KEPT_PARSES - 1)) {
    fs.rmSync(file, { force: true });
    fs.rmSync(file.replace(/\.json$/, VALIDATED_SUFFIX), { force: true });
  }
}

/** Beside a parse: the mark that this text passed express-openapi-validator's check of the spec. */
const VALIDATED_SUFFIX = '.validated';

/**
 * Whether this very text (by its hash) has passed the validator's check of the spec against the
 * OpenAPI schema in an earlier process. That check costs about 0.3 s of CPU per start and can only
 * give the same answer for the same text, so a start of an unchanged spec passes it by.
 */
export function specValidatedBefore(): boolean {
  loadSpec();
  return fs.existsSync(path.join(PARSED_CACHE_DIR, `${specHash}${VALIDATED_SUFFIX}`));
}

/** Records that this text passed the validator's check of the spec (see `specValidatedBefore`); best effort. */
export function rememberSpecValidated(): void {
  loadSpec();
  try {
    fs.mkdirSync(PARSED_CACHE_DIR, { recursive: true });
    fs.writeFileSync(path.join(PARSED_CACHE_DIR, `${specHash}${VALIDATED_SUFFIX}`), '');
  } catch {
    // A read-only install: every start checks the spec.
  }
}
