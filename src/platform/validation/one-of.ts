/**
 * A type guard for a closed list of names declared `as const` (scopes, roles, event types):
 * `isOneOf(SCOPES, value)` narrows `value` to the list's union. `includes` alone does not
 * narrow, and its parameter type refuses a wider value without a cast; the cast lives here.
 */
export function isOneOf<T>(values: readonly T[], value: unknown): value is T {
  return (values as readonly unknown[]).includes(value);
}
