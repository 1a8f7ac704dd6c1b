/**
 * The arrays a set-based statement's `unnest($1::t[], $2::u[], ...)` takes, one per key of `keys`
 * in that order: each the items' values of that key. A computed column is mapped beside them.
 */
export function unnestColumns<T, K extends keyof T>(items: readonly T[], keys: readonly K[]): T[K][][] {
  return keys.map((key) => items.map((item) => item[key]));
}
