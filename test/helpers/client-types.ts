import fs from 'node:fs';
import ts from 'typescript';
import { projectFile } from '../../src/operations/project-files.js';

/**
 * The response objects of the widely used payments API as its current Node client (`stripe` in
 * node_modules) types them, read from the client's declaration files, and a walk that compares
 * them with the schemas of our spec: which fields the client types as always present (not `?:`)
 * our schema lacks, leaves optional, or types otherwise.
 */

/** The kinds of JSON value a type admits. */
export type Kind = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

interface ClientProperty {
  name: string;
  optional: boolean;
  type: ts.TypeNode;
  /** The namespace path the property's type is read in (`['Charge', 'Outcome']`). */
  scope: string[];
}

/** The interfaces and type aliases of one declaration file, by qualified name (`Charge.Outcome`). */
export class ClientTypes {
  private readonly interfaces = new Map<
    string,
    { own: ClientProperty[]; bases: string[]; scope: string[] }
  >();
  private readonly aliases = new Map<string, { type: ts.TypeNode; scope: string[] }>();
  readonly file: string;

  constructor(resourceFile: string) {
    this.file = projectFile(`node_modules/stripe/cjs/resources/${resourceFile}`);
    const source = ts.createSourceFile(
      this.file,
      fs.readFileSync(this.file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    this.collect(source.statements, []);
  }

  private collect(statements: ts.NodeArray<ts.Statement>, scope: string[]): void {
    for (const statement of statements) {
      if (ts.isInterfaceDeclaration(statement)) {
        const name = [...scope, statement.name.text].join('.');
        const inner = [...scope, statement.name.text];
        this.interfaces.set(name, {
          own: statement.members.filter(ts.isPropertySignature).map((member) => ({
            name: member.name.getText(member.getSourceFile()).replace(/^['"]|['"]$/g, ''),
            optional: member.questionToken !== undefined,
            type: member.type!,
            scope: inner,
          })),
          bases: (statement.heritageClauses ?? []).flatMap((clause) =>
            clause.types.map((base) => base.expression.getText(base.getSourceFile())),
          ),
          scope,
        });
      } else if (ts.isTypeAliasDeclaration(statement)) {
        this.aliases.set([...scope, statement.name.text].join('.'), {
          type: statement.type,
          scope,
        });
      } else if (
        ts.isModuleDeclaration(statement) &&
        statement.body &&
        ts.isModuleBlock(statement.body)
      ) {
        this.collect(statement.body.statements, [...scope, statement.name.text]);
      }
    }
  }

  /** Whether the file declares an interface of that qualified name. */
  has(name: string): boolean {
    return this.interfaces.has(name);
  }

  /** The properties of an interface of the file (`Refund`, `Charge.Outcome`), its bases' too. */
  properties(name: string): ClientProperty[] {
    const found = this.interfaces.get(name);
    if (!found) throw new Error(`${this.file} has no interface ${name}`);
    const inherited = found.bases.flatMap((base) => {
      const resolved = this.resolve(base, found.scope, this.interfaces);
      if (!resolved) throw new Error(`${this.file}: ${name} extends ${base}, not declared there`);
      return this.properties(resolved);
    });
    const own = new Set(found.own.map((p) => p.name));
    return [...inherited.filter((p) => !own.has(p.name)), ...found.own];
  }

  /** The qualified name a reference means in `scope`, if the file declares it (inner scopes first). */
  private resolve(
    reference: string,
    scope: string[],
    table: Map<string, unknown>,
  ): string | undefined {
    for (let depth = scope.length; depth >= 0; depth--) {
      const name = [...scope.slice(0, depth), reference].join('.');
      if (table.has(name)) return name;
    }
    return undefined;
  }

  /** The interface of this file a property's type names (besides null), if it names one. */
  nestedInterface(property: ClientProperty): string | undefined {
    const members = ts.isUnionTypeNode(property.type) ? property.type.types : [property.type];
    for (const member of members) {
      if (ts.isTypeReferenceNode(member)) {
        const name = this.resolve(
          member.typeName.getText(member.getSourceFile()),
          property.scope,
          this.interfaces,
        );
        if (name) return name;
      }
    }
    return undefined;
  }

  /** The kinds of value a type admits. */
  kinds(type: ts.TypeNode, scope: string[]): Set<Kind> {
    const out = new Set<Kind>();
    const add = (node: ts.TypeNode): void => {
      if (ts.isParenthesizedTypeNode(node)) return add(node.type);
      if (ts.isUnionTypeNode(node)) return node.types.forEach(add);
      if (ts.isArrayTypeNode(node) || ts.isTupleTypeNode(node)) return void out.add('array');
      if (ts.isTypeLiteralNode(node)) return void out.add('object');
      if (ts.isLiteralTypeNode(node)) {
        const literal = node.literal;
        if (literal.kind === ts.SyntaxKind.NullKeyword) out.add('null');
        else if (ts.isStringLiteral(literal)) out.add('string');
        else if (ts.isNumericLiteral(literal)) out.add('number');
        else out.add('boolean');
        return;
      }
      switch (node.kind) {
        case ts.SyntaxKind.StringKeyword:
          return void out.add('string');
        case ts.SyntaxKind.NumberKeyword:
          return void out.add('number');
        case ts.SyntaxKind.BooleanKeyword:
          return void out.add('boolean');
        case ts.SyntaxKind.NullKeyword:
          return void out.add('null');
      }
      if (ts.isTypeReferenceNode(node)) {
        const reference = node.typeName.getText(node.getSourceFile());
        if (reference === 'Array') return void out.add('array');
        const alias = this.resolve(reference, scope, this.aliases);
        if (alias) {
          const { type, scope: aliasScope } = this.aliases.get(alias)!;
          for (const kind of this.kinds(type, aliasScope)) out.add(kind);
          return;
        }
        // An interface of this file or another (Charge, Metadata, Address, ApiList): an object.
        return void out.add('object');
      }
      throw new Error(
        `${this.file}: a type this walk does not read: ${node.getText(node.getSourceFile())}`,
      );
    };
    add(type);
    return out;
  }
}

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
};

/** One object shape a schema can take: its properties and which are required. */
interface Shape {
  properties: Record<string, Schema>;
  required: Set<string>;
}

export class SpecSchemas {
  constructor(private readonly schemas: Record<string, Schema>) {}

  deref(schema: Schema): Schema {
    let current = schema;
    while (current.$ref) current = this.schemas[current.$ref.replace('#/components/schemas/', '')]!;
    return current;
  }

  /** The object shapes a schema can take: one per alternative of a oneOf/anyOf, allOf merged. */
  shapes(schema: Schema): Shape[] {
    const s = this.deref(schema);
    const own: Shape[] = s.properties
      ? [{ properties: { ...s.properties }, required: new Set(s.required ?? []) }]
      : [];
    const alternatives = [...(s.oneOf ?? []), ...(s.anyOf ?? [])].flatMap((a) => this.shapes(a));
    let result: Shape[] = alternatives.length > 0 ? alternatives : own;
    if (alternatives.length > 0 && own.length > 0) result = result.map((a) => merge(a, own[0]!));
    for (const part of s.allOf ?? []) {
      const partShapes = this.shapes(part);
      if (partShapes.length === 0) continue;
      result =
        result.length === 0
          ? partShapes
          : result.flatMap((a) => partShapes.map((b) => merge(a, b)));
    }
    return result;
  }

  /** The kinds of value a schema admits (empty: it says nothing of the type). */
  kinds(schema: Schema): Set<Kind> {
    const s = this.deref(schema);
    const out = new Set<Kind>();
    const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
    for (const type of types) out.add(type === 'integer' ? 'number' : (type as Kind));
    if (types.length === 0) {
      for (const value of s.const !== undefined ? [s.const] : (s.enum ?? []))
        out.add(kindOf(value));
      if (s.properties) out.add('object');
      for (const alternative of [...(s.oneOf ?? []), ...(s.anyOf ?? [])]) {
        for (const kind of this.kinds(alternative)) out.add(kind);
      }
      for (const part of s.allOf ?? []) for (const kind of this.kinds(part)) out.add(kind);
    }
    return out;
  }
}

const merge = (a: Shape, b: Shape): Shape => ({
  properties: { ...a.properties, ...b.properties },
  required: new Set([...a.required, ...b.required]),
});

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as Kind;
}

/** A difference between the client's type and our schema, at a dotted path (`charge.outcome.type`). */
export interface Difference {
  path: string;
  problem: string;
}

/**
 * Walks the client's interface `name` against our schema: every property the client types as
 * always present must be a required property of every shape of our schema, admitting no kind of
 * value the client's type does not; where both sides describe a nested object of the client's own
 * file (`Charge.Outcome`), the walk goes on into it.
 */
export function compare(
  client: ClientTypes,
  name: string,
  spec: SpecSchemas,
  schema: Schema,
  path: string,
): Difference[] {
  const differences: Difference[] = [];
  const shapes = spec.shapes(schema);
  for (const property of client.properties(name)) {
    if (property.optional) continue;
    const at = `${path}.${property.name}`;
    const clientKinds = client.kinds(property.type, property.scope);
    for (const shape of shapes) {
      const ours = shape.properties[property.name];
      if (!ours) {
        differences.push({
          path: at,
          problem: `missing (typed ${property.type.getText(property.type.getSourceFile())})`,
        });
        break;
      }
      if (!shape.required.has(property.name)) {
        differences.push({ path: at, problem: 'not required' });
        break;
      }
      const extra = [...spec.kinds(ours)].filter((kind) => !clientKinds.has(kind));
      if (extra.length > 0) {
        differences.push({
          path: at,
          problem: `admits ${extra.join(', ')}; typed ${property.type.getText(property.type.getSourceFile())}`,
        });
        break;
      }
    }
    const nested = client.nestedInterface(property);
    if (!nested) continue;
    // The nested object as each of our shapes describes it (the first that lists properties).
    const inner = shapes
      .map((shape) => shape.properties[property.name])
      .find((ours) => ours && spec.shapes(ours).length > 0);
    if (inner) differences.push(...compare(client, nested, spec, inner, at));
  }
  return differences;
}
