import { createRequire } from 'node:module';

/**
 * express-openapi-validator 5.6.2 spends about a second of CPU on every process start before its
 * first request, in two steps that give nothing for a spec like ours (one file, local references):
 *
 * - Its schema preprocessor resolves each `$ref` by asking an Ajv instance of its own for the
 *   schema (`ajv.getSchema(ref).schema`), and Ajv compiles the whole referenced schema into a
 *   validator to answer. Only `.schema`, the very object the preprocessor gave Ajv, is read; the
 *   compiled validator and that Ajv instance are thrown away (request and response validators
 *   compile their own, when an operation is first called).
 * - Its loader passes the spec object through json-schema-ref-parser's `bundle`, which inlines
 *   references to other files; a spec whose references are all local comes back as it went in.
 * - It compiles the OpenAPI schema (to check the spec against it) at every start, even when told
 *   not to check the spec (`validateApiSpec: false`, which spec-validator.ts gives a spec text that
 *   passed before).
 *
 * So a reference to a component schema is looked up in the components the preprocessor registered
 * with Ajv (the same object `getSchema` would return), and a spec without a reference to another
 * file skips `bundle`, and the OpenAPI schema is compiled when a spec is first checked against it.
 * Everything else goes to the validator's own code, and validation itself is
 * untouched. test/unit/validator-startup.test.ts checks that the preprocessed spec is identical
 * with and without this. Remove once the validator stops compiling to resolve references.
 */
export function speedUpValidatorStartup(): void {
  const { preprocessor, framework, schemaValidatorModule } = validatorInternals();
  originalResolveSchema ??= preprocessor.resolveSchema;
  originalLoadSpec ??= framework.loadSpec;
  OriginalSchemaValidator ??= schemaValidatorModule.OpenAPISchemaValidator;
  preprocessor.resolveSchema = resolveComponentReference;
  framework.loadSpec = loadSpecWithoutBundling;
  schemaValidatorModule.OpenAPISchemaValidator = SchemaValidatorCompiledOnUse(
    OriginalSchemaValidator!,
  );
}

/** Puts the validator's own start-up steps back (for the test that compares both ways). */
export function restoreValidatorStartup(): void {
  const { preprocessor, framework } = validatorInternals();
  if (originalResolveSchema) preprocessor.resolveSchema = originalResolveSchema;
  if (originalLoadSpec) framework.loadSpec = originalLoadSpec;
  if (OriginalSchemaValidator)
    validatorInternals().schemaValidatorModule.OpenAPISchemaValidator = OriginalSchemaValidator;
}

/** The parts of the validator's SchemaPreprocessor that are used here. */
interface PreprocessorInternals {
  resolveSchema(this: PreprocessorInternals, schema: unknown): unknown;
  apiDoc: { components?: { schemas?: Record<string, unknown> } };
  resolvedSchemaCache: Map<string, unknown>;
  /** The component schemas as they were when Ajv was given them, before preprocessing replaced any. */
  registeredComponents?: Record<string, unknown>;
}

/** The part of the validator's OpenAPIFramework that is used here. */
interface FrameworkInternals {
  loadSpec(this: FrameworkInternals, spec: unknown, refParser?: unknown): Promise<unknown>;
}

/** The validator's checker of a spec against the OpenAPI schema: compiles that schema when made. */
type SchemaValidatorClass = new (options: { version: string; validateApiSpec: boolean }) => {
  validate(doc: unknown): { errors: unknown[] };
};

let OriginalSchemaValidator: SchemaValidatorClass | undefined;
let originalResolveSchema: PreprocessorInternals['resolveSchema'] | undefined;
let originalLoadSpec: FrameworkInternals['loadSpec'] | undefined;
const COMPONENT_SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

function resolveComponentReference(this: PreprocessorInternals, schema: unknown): unknown {
  const ref = (schema as { $ref?: unknown } | null)?.$ref;
  const component = typeof ref === 'string' ? COMPONENT_SCHEMA_REF.exec(ref) : null;
  if (component) {
    const cached = this.resolvedSchemaCache.get(ref as string);
    if (cached !== undefined) return cached;
    // Ajv was given each component under its pointer when the preprocessor was made: this is that object.
    this.registeredComponents ??= { ...this.apiDoc.components?.schemas };
    const resolved =
      this.registeredComponents[component[1].replaceAll('~1', '/').replaceAll('~0', '~')];
    if (resolved !== undefined) {
      this.resolvedSchemaCache.set(ref as string, resolved);
      return resolved;
    }
  }
  return originalResolveSchema!.call(this, schema);
}

function loadSpecWithoutBundling(
  this: FrameworkInternals,
  spec: unknown,
  refParser?: unknown,
): Promise<unknown> {
  if (typeof spec === 'object' && spec !== null && !refersToAnotherFile(spec))
    return Promise.resolve(spec);
  return originalLoadSpec!.call(this, spec, refParser);
}

/** The same checker, made (and its schema compiled) on its first check rather than up front. */
function SchemaValidatorCompiledOnUse(Original: SchemaValidatorClass): SchemaValidatorClass {
  return class {
    private made?: InstanceType<SchemaValidatorClass>;
    constructor(private readonly options: { version: string; validateApiSpec: boolean }) {}
    validate(doc: unknown) {
      this.made ??= new Original(this.options);
      return this.made.validate(doc);
    }
  };
}

/** Whether any `$ref` in the document points outside it (anything but `#…`). */
function refersToAnotherFile(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(refersToAnotherFile);
  if (node === null || typeof node !== 'object') return false;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) return true;
    if (refersToAnotherFile(value)) return true;
  }
  return false;
}

/** The prototypes of the validator's own build, as the validator loads them (one instance per process). */
function validatorInternals(): {
  preprocessor: PreprocessorInternals;
  framework: FrameworkInternals;
  schemaValidatorModule: { OpenAPISchemaValidator: SchemaValidatorClass };
} {
  const validatorRequire = createRequire(
    createRequire(import.meta.url).resolve('express-openapi-validator'),
  );
  const { SchemaPreprocessor } = validatorRequire('./middlewares/parsers/schema.preprocessor') as {
    SchemaPreprocessor: { prototype: PreprocessorInternals };
  };
  const { OpenAPIFramework } = validatorRequire('./framework/index') as {
    OpenAPIFramework: { prototype: FrameworkInternals };
  };
  const schemaValidatorModule = validatorRequire('./framework/openapi.schema.validator') as {
    OpenAPISchemaValidator: SchemaValidatorClass;
  };
  return {
    preprocessor: SchemaPreprocessor.prototype,
    framework: OpenAPIFramework.prototype,
    schemaValidatorModule,
  };
}
