import { ApiError } from '../domain/errors.js';
import { formNotation } from '../domain/nul-guard.js';

/**
 * A form field as sent: one value, a list (`expand[]=a&expand[]=b`, or a name sent more than
 * once), or an object of fields (`metadata[order]=6735`). Objects have no prototype, so that a
 * field named `__proto__` or `constructor` is data like any other.
 */
export type FormValue = string | FormValue[] | FormObject;
export interface FormObject {
  [name: string]: FormValue;
}

/** The most brackets after a name: the spec's deepest form field has one (`created[gte]`). */
const MAX_BRACKETS = 4;
/** `name`, then any number of `[segment]` (an empty segment, `[]`, appends to a list). */
const FIELD_NAME = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
const SEGMENT = /\[([^[\]]*)\]/g;

/**
 * Parses `application/x-www-form-urlencoded` text (a body, or a query string) in bracket notation,
 * without qs's guesses: percent-decoding is WHATWG's (`URLSearchParams`); a name sent twice becomes
 * a list, which only a list-typed field accepts later; a name sent both as a value and as an object
 * (`metadata=1&metadata[k]=v`), a malformed name (`a[b`) and nesting deeper than 4 are refused
 * here, naming the field. Nothing is dropped or merged silently, prototype names included.
 */
export function parseForm(text: string, maxFields = 1000): FormObject {
  const root: FormObject = Object.create(null);
  let fields = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++fields > maxFields) throw new ApiError('request_too_large', `The request has more than ${maxFields} parameters.`);
    place(root, fieldPath(name), value);
  }
  return root;
}

/** `metadata[order]` → `['metadata', 'order']`; `expand[]` → `['expand', '']`. */
function fieldPath(name: string): string[] {
  const match = FIELD_NAME.exec(name);
  if (!match) {
    if (name === '') throw new ApiError('body_invalid', 'A parameter has no name (`=value`).');
    throw new ApiError('parameter_invalid', `Invalid parameter name ${name}: use bracket notation, as in metadata[order].`, {
      param: name,
    });
  }
  const path = [match[1], ...Array.from(match[2].matchAll(SEGMENT), (m) => m[1])];
  if (path.length - 1 > MAX_BRACKETS) {
    throw new ApiError('parameter_invalid', `Invalid ${match[1]}: nested more than ${MAX_BRACKETS} levels deep.`, {
      param: match[1],
    });
  }
  return path;
}

/** Puts one value at its path, creating the objects and lists on the way, refusing a clash. */
function place(root: FormObject, path: string[], value: string): void {
  let container: FormObject | FormValue[] = root;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const last = i === path.length - 1;
    // `[]` appends: a new element (for a value) or a new object or list (for deeper segments).
    if (Array.isArray(container) && segment === '') {
      const element: FormValue = last ? value : emptyContainer(path[i + 1]);
      container.push(element);
      if (last) return;
      container = element as FormObject | FormValue[];
      continue;
    }
    if (Array.isArray(container)) throw clash(path.slice(0, i)); // `a[]=x&a[k]=y`
    const existing: FormValue | undefined = container[segment];
    if (last) {
      // A name sent twice becomes a list; a value after an object is a clash.
      if (existing === undefined) container[segment] = value;
      else if (typeof existing === 'string') container[segment] = [existing, value];
      else if (Array.isArray(existing)) existing.push(value);
      else throw clash(path.slice(0, i + 1));
      continue;
    }
    // `a=1&a[]=2` reads as `a=1&a=2`; a value or list where an object goes (or the reverse) is a clash.
    const wantsList = path[i + 1] === '';
    if (existing === undefined) container[segment] = emptyContainer(path[i + 1]);
    else if (typeof existing === 'string' && wantsList) container[segment] = [existing];
    else if (typeof existing === 'string' || Array.isArray(existing) !== wantsList) throw clash(path.slice(0, i + 1));
    container = container[segment] as FormObject | FormValue[];
  }
}

function emptyContainer(nextSegment: string): FormObject | FormValue[] {
  return nextSegment === '' ? [] : Object.create(null);
}

function clash(path: string[]): ApiError {
  const param = formNotation(path);
  return new ApiError(
    'parameter_invalid',
    `Invalid ${param}: sent both as a value and as an object (or a list); send one of them.`,
    {
      param,
    },
  );
}
