/**
 * Limits on what one GraphQL operation may ask for, checked before anything executes: the number of
 * tokens (while parsing), and the depth, cost and aliases of each operation (as validation rules).
 * Every refusal is a GraphQLError with a specific message and `extensions.code`, the measured value
 * and the limit, so the HTTP handler and the WebSocket server answer it as a client error.
 *
 * Guarantees: measuring is linear in the document (each named fragment is measured once, however
 * often it is spread), terminates on fragment cycles, and never executes anything. Measures are
 * upper bounds: `@skip`/`@include` are ignored and fields selected twice are counted twice.
 */
import {
  GraphQLError,
  Kind,
  Lexer,
  SchemaMetaFieldDef,
  Source,
  TokenKind,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  parse,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';

/** The most a single GraphQL operation may ask for. */
export interface GraphQLLimits {
  /** Deepest field nesting, fragments expanded; introspection fields are not counted. */
  maxDepth: number;
  /** Highest cost by the formula of {@link limitRules}. */
  maxCost: number;
  /** Most aliased fields per operation, fragments expanded. */
  maxAliases: number;
  /** Most lexical tokens in the document (comments excluded), enforced while parsing. */
  maxTokens: number;
}

/**
 * The limits the server runs with unless configured otherwise.
 * - depth 10: two nested connections (3 levels each: `charges { edges { node` …) and a few fields more;
 * - cost 1,000: a page of 100 charges with each charge's customer, refunds and card costs 601, but a
 *   page of 100 charges with a page of 100 charges of each customer costs 30,401;
 * - aliases 30: plenty for a hand-written query, far too few to amplify one costly field;
 * - tokens 5,000: graphql's `getIntrospectionQuery()` (what GraphiQL sends) has under 200.
 */
export const DEFAULT_GRAPHQL_LIMITS: Readonly<GraphQLLimits> = Object.freeze({
  maxDepth: 10,
  maxCost: 1000,
  maxAliases: 30,
  maxTokens: 5000,
});

/** The page size of a connection whose `first`/`last` is left out, as `limit` is in REST. */
const DEFAULT_PAGE_SIZE = 10;
/** The largest page a connection returns (the schema's "`first` is at most 100"). */
const MAX_PAGE_SIZE = 100;
/** A field with one of these arguments is a connection: its selection is resolved once per item of the page. */
const PAGE_SIZE_ARGUMENTS = ['first', 'last'];
/** A field with this list argument (`nodes(ids:)`) resolves its selection once per item of the list. */
const ID_LIST_ARGUMENT = 'ids';

/**
 * graphql's `parse`, refusing a document of more than `limits.maxTokens` tokens before building
 * its syntax tree: a huge document costs CPU and memory even when it is invalid. The refusal is a
 * GraphQLError with `extensions.code` `TOO_MANY_TOKENS` and `extensions.maxTokens`; every other
 * syntax error is graphql's own.
 */
export function parseWithinLimits(source: string, limits: GraphQLLimits): DocumentNode {
  try {
    // `maxLexicalTokens` is graphql 16.15's name for the deprecated `maxTokens` option.
    return parse(source, { maxLexicalTokens: limits.maxTokens });
  } catch (error) {
    // Recognised by counting rather than by graphql's message, whose wording is not a contract.
    if (error instanceof GraphQLError && hasMoreTokensThan(source, limits.maxTokens)) {
      throw new GraphQLError(
        `The query document exceeds the maximum of ${limits.maxTokens} tokens.`,
        {
          extensions: { code: 'TOO_MANY_TOKENS', maxTokens: limits.maxTokens },
        },
      );
    }
    throw error;
  }
}

/** Whether `source` has more than `maxTokens` tokens, lexing no further than one token past the limit. */
function hasMoreTokensThan(source: string, maxTokens: number): boolean {
  const lexer = new Lexer(new Source(source));
  try {
    for (let count = 0; count <= maxTokens; count++) {
      if (lexer.advance().kind === TokenKind.EOF) return false;
    }
    return true;
  } catch {
    // A lexical error before the limit: the parser's syntax error is the one to report.
    return false;
  }
}

/**
 * Validation rules (graphql-js `ValidationRule`s) enforcing `maxDepth`, `maxCost` and `maxAliases`
 * on each operation, with named and inline fragments expanded; append them to `specifiedRules`.
 *
 * - Depth (`QUERY_TOO_DEEP`): the deepest nesting of fields; `{ charge(id: …) { id } }` has depth 2.
 *   Introspection fields (`__schema`, `__type`, `__typename`) and their subtrees are not counted,
 *   so that GraphiQL's introspection query passes.
 * - Cost (`QUERY_TOO_COMPLEX`): every field whose type is an object or a list costs 1, scalars and
 *   enums 0, introspection nothing. Everything selected inside a connection (a field with a `first`
 *   or `last` argument) is multiplied by its page size, since it is resolved once per item:
 *   `first`/`last` as written (the larger when both; capped at 100), 10 when left out, and 100 when
 *   given by a variable. `nodes(ids:)` is multiplied likewise by the number of ids (100 when
 *   given by a variable). Variables are not known at validation time and a variable's default can be
 *   overridden by the request, so the only safe bound is the largest page the server returns.
 *   A plain list such as `refunds` is not multiplied: it has no page size to read (a charge's
 *   refunds are bounded only by its amount, one minor unit each at worst).
 * - Aliases (`TOO_MANY_ALIASES`): aliased fields, counted once per execution of a fragment, so that
 *   one costly field cannot be asked for hundreds of times under different names (also not through
 *   a fragment spread in several places). Aliases inside introspection count too.
 */
export function limitRules(limits: GraphQLLimits): ValidationRule[] {
  const { maxDepth, maxCost, maxAliases } = limits;
  return [
    operationLimitRule(({ depth }) =>
      depth > maxDepth
        ? {
            message: `Query depth ${depth} exceeds the maximum of ${maxDepth}.`,
            extensions: { code: 'QUERY_TOO_DEEP', depth, maxDepth },
          }
        : undefined,
    ),
    operationLimitRule(({ cost }) =>
      cost > maxCost
        ? {
            message:
              `Query cost ${cost} exceeds the maximum of ${maxCost}. Every object or list field costs 1, times the ` +
              'page size (first/last; 10 if left out, 100 if a variable) of each connection around it: ask for ' +
              'smaller pages or fewer nested connections.',
            extensions: { code: 'QUERY_TOO_COMPLEX', cost, maxCost },
          }
        : undefined,
    ),
    operationLimitRule(({ aliases }) =>
      aliases > maxAliases
        ? {
            message: `Query uses ${aliases} aliases, more than the maximum of ${maxAliases}.`,
            extensions: { code: 'TOO_MANY_ALIASES', aliases, maxAliases },
          }
        : undefined,
    ),
  ];
}

/** What one operation asks for, by the measures of {@link limitRules}. */
interface Measure {
  depth: number;
  cost: number;
  aliases: number;
}

const NOTHING: Measure = { depth: 0, cost: 0, aliases: 0 };

/** Why an operation is refused: the error's message and extensions. */
interface Refusal {
  message: string;
  extensions: { code: string; [measure: string]: unknown };
}

/** A rule that measures each operation of the document and reports the refusal `check` returns, if any. */
function operationLimitRule(check: (measure: Measure) => Refusal | undefined): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const meter = new DocumentMeter(context);
    return {
      OperationDefinition(operation) {
        const refusal = check(meter.measureOperation(operation));
        if (refusal)
          context.reportError(
            new GraphQLError(refusal.message, { nodes: operation, extensions: refusal.extensions }),
          );
        // The walk above has covered the operation; the visitor need not descend into it.
        return false;
      },
    };
  };
}

/** Measures the operations of one document, remembering each named fragment's measure. */
class DocumentMeter {
  private readonly fragmentMeasures = new Map<string, Measure>();
  private readonly fragmentsInProgress = new Set<string>();

  constructor(private readonly context: ValidationContext) {}

  measureOperation(operation: OperationDefinitionNode): Measure {
    return this.measureSelectionSet(
      operation.selectionSet,
      this.context.getSchema().getRootType(operation.operation),
    );
  }

  private measureSelectionSet(
    selectionSet: SelectionSetNode,
    parentType: GraphQLNamedType | null | undefined,
  ): Measure {
    let depth = 0;
    let cost = 0;
    let aliases = 0;
    for (const selection of selectionSet.selections) {
      const measure = this.measureSelection(selection, parentType);
      depth = Math.max(depth, measure.depth);
      cost += measure.cost;
      aliases += measure.aliases;
    }
    return { depth, cost, aliases };
  }

  private measureSelection(
    selection: SelectionNode,
    parentType: GraphQLNamedType | null | undefined,
  ): Measure {
    switch (selection.kind) {
      case Kind.FIELD:
        return this.measureField(selection, parentType);
      case Kind.INLINE_FRAGMENT: {
        const typeCondition =
          selection.typeCondition &&
          this.context.getSchema().getType(selection.typeCondition.name.value);
        return this.measureSelectionSet(
          selection.selectionSet,
          selection.typeCondition ? typeCondition : parentType,
        );
      }
      case Kind.FRAGMENT_SPREAD:
        return this.measureFragment(selection.name.value);
    }
  }

  private measureFragment(name: string): Measure {
    const known = this.fragmentMeasures.get(name);
    if (known) return known;
    const fragment = this.context.getFragment(name);
    // An unknown fragment is reported by KnownFragmentNames, a cycle by NoFragmentCycles; counting
    // the spread that closes a cycle as nothing keeps this walk finite.
    if (!fragment || this.fragmentsInProgress.has(name)) return NOTHING;
    this.fragmentsInProgress.add(name);
    const typeCondition = this.context.getSchema().getType(fragment.typeCondition.name.value);
    const measure = this.measureSelectionSet(fragment.selectionSet, typeCondition);
    this.fragmentsInProgress.delete(name);
    this.fragmentMeasures.set(name, measure);
    return measure;
  }

  private measureField(field: FieldNode, parentType: GraphQLNamedType | null | undefined): Measure {
    const aliases = field.alias ? 1 : 0;
    const definition = fieldDefinition(parentType, field.name.value);
    const inside = field.selectionSet
      ? this.measureSelectionSet(field.selectionSet, definition && getNamedType(definition.type))
      : NOTHING;
    // Introspection reads the schema in memory: free and of no depth, but its aliases still amplify.
    if (field.name.value.startsWith('__')) return { ...NOTHING, aliases: aliases + inside.aliases };
    const ownCost = definition && costsOne(definition.type) ? 1 : 0;
    return {
      depth: 1 + inside.depth,
      cost: ownCost + pageSize(field, definition) * inside.cost,
      aliases: aliases + inside.aliases,
    };
  }
}

type AnyField = GraphQLField<unknown, unknown>;

/** The definition of a field selected on `parentType`, introspection meta-fields included; undefined if unknown. */
function fieldDefinition(
  parentType: GraphQLNamedType | null | undefined,
  name: string,
): AnyField | undefined {
  // Meta-fields in the wrong place are reported by FieldsOnCorrectType; their type is all the walk needs.
  if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
  if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (isObjectType(parentType) || isInterfaceType(parentType)) return parentType.getFields()[name];
  return undefined;
}

/** Objects and lists are what a resolver fetches; scalars and enums come with their parent. */
function costsOne(type: GraphQLOutputType): boolean {
  return isListType(getNullableType(type)) || isCompositeType(getNamedType(type));
}

/** How many times the selection inside `field` is resolved: its page size if it is a connection, else 1. */
function pageSize(field: FieldNode, definition: AnyField | undefined): number {
  if (definition?.args.some((argument) => argument.name === ID_LIST_ARGUMENT)) {
    const ids = field.arguments?.find((given) => given.name.value === ID_LIST_ARGUMENT)?.value;
    // A single id stands for a list of one (input coercion); a variable for the largest list.
    if (ids?.kind === Kind.LIST) return Math.min(ids.values.length, MAX_PAGE_SIZE);
    return ids?.kind === Kind.VARIABLE ? MAX_PAGE_SIZE : 1;
  }
  const pageArguments =
    definition?.args.filter((argument) => PAGE_SIZE_ARGUMENTS.includes(argument.name)) ?? [];
  if (pageArguments.length === 0) return 1;
  const requested = pageArguments
    .map((argument) => field.arguments?.find((given) => given.name.value === argument.name)?.value)
    .filter((value): value is ValueNode => value !== undefined && value.kind !== Kind.NULL)
    .map(requestedPageSize);
  if (requested.length > 0) return Math.max(...requested);
  // Left out: what the resolver receives, the schema's default if it declares one.
  const declaredDefault = pageArguments
    .map((argument) => argument.defaultValue)
    .find(Number.isInteger);
  return typeof declaredDefault === 'number'
    ? Math.min(declaredDefault, MAX_PAGE_SIZE)
    : DEFAULT_PAGE_SIZE;
}

function requestedPageSize(value: ValueNode): number {
  // A variable (whatever its default) or an ill-typed value (refused by ValuesOfCorrectType): the largest page.
  if (value.kind !== Kind.INT) return MAX_PAGE_SIZE;
  return Math.min(Math.max(Number.parseInt(value.value, 10), 0), MAX_PAGE_SIZE);
}
