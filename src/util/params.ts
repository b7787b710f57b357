/** Workload params as one canonical string: the configuration part of every series and baseline key. */

/** Canonical JSON (sorted keys) so equal params always give the same string. */
export function canonicalParams(params: unknown): string {
  if (params === undefined || params === null || params === '') return ''
  if (typeof params === 'string') return params
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys)
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map(k => [k, sortKeys((v as Record<string, unknown>)[k])])
      )
    return v
  }
  const json = JSON.stringify(sortKeys(params))
  return json === '{}' ? '' : json
}
