/**
 * Request params are read exhaustively: a property the spec adds to a create or update schema
 * (hence to the generated params type) is a compile error in the service until the service
 * handles it, so a new field cannot be accepted by the validator and then silently dropped.
 *
 * Usage: destructure the params, naming every property the service uses (and, with a `_` name,
 * those another layer uses, such as `expand`), and hand the rest to {@link allParamsRead}:
 *
 * ```ts
 * const { email, name, metadata, ...unread } = params;
 * allParamsRead(unread);
 * ```
 */

/** The named properties of a type (an index signature, as in `Record<string, never>`, names none). */
type NamedKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** The rest of a params destructuring when nothing is left, or an error text naming what is. */
export type NothingUnread<Rest> = [NamedKeys<Rest>] extends [never]
  ? Rest
  : `request parameter not read by the service: ${Extract<NamedKeys<Rest>, string>}`;

/**
 * Compile-time check that a destructuring of request params named every property: `unread` is the
 * rest of that destructuring, and must have no property. Does nothing at run time.
 */
export function allParamsRead<Rest extends object>(unread: NothingUnread<Rest>): void {
  void unread;
}
