/**
 * The fields whose values an update changed, each with its value before: what an `*.updated` event
 * carries as `previous_attributes`. `audit` and `updated_at` change on every write and are left out.
 */
export function previousAttributes<T extends Record<string, unknown>>(before: T, after: T): Partial<T> {
  const previous: Partial<T> = {};
  for (const key of Object.keys(before) as (keyof T)[]) {
    if (key === "audit" || key === "updated_at") continue;
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key];
  }
  return previous;
}
