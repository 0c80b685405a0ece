/**
 * Builds `previous_attributes` for an `*.updated` event: the old values of the fields that
 * changed, as the resource showed them.
 */
export function previousAttributes<T extends object>(before: T, after: T): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(after) as Array<keyof T>) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key];
  }
  return changed;
}
