/**
 * REST's enum values and GraphQL's are one set, spelled in two cases: `requires_capture` is
 * `REQUIRES_CAPTURE`. The types carry the case change, so a GraphQL enum that gains or loses a
 * value its REST twin does not have is a compile error where the two meet.
 */

/** A REST enum value as GraphQL spells it. */
export function toGraphQLEnum<Value extends string>(value: Value): Uppercase<Value> {
  return value.toUpperCase() as Uppercase<Value>;
}

/** A GraphQL enum value as REST spells it (REST's own checks then hold it to the spec's values). */
export function toRestEnum<Value extends string>(value: Value): Lowercase<Value> {
  return value.toLowerCase() as Lowercase<Value>;
}
