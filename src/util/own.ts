/**
 * A table's value for a key that comes from untrusted text (a metric, unit or variable name from a result file or
 * an image): own keys only, so `constructor`, `toString` or `__proto__` never read Object.prototype's members.
 */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}
