/**
 * Which stored entry a check's series belong to: the key is the arm, fingerprint and workload config;
 * an entry of the same arm and config under another fingerprint is the fallback (then compared as
 * incomparable, naming what changed), never a silent skip.
 */
import { createHash } from 'node:crypto'
import type { ArmSeries, PartialFingerprint } from '../../results/index.js'
import type { BaselineEntry, BaselineFile } from './format.js'
import type { CurrentResults } from './store.js'

/** Short stable hash of the canonical params string ('none' when there are none). */
export function paramsHash(params: string): string {
  return params === '' ? 'none' : createHash('sha256').update(params).digest('hex').slice(0, 12)
}

/**
 * Stable key: arm label, GPU model, driver, image digest, GPU access mode, device, workload and a hash
 * of its params. Unknown facts are '-'. The arm label is included so a native arm and a container arm
 * whose facts are unknown never share an entry.
 */
export function baselineKey(
  environment: string,
  facts: PartialFingerprint | undefined,
  workload: string,
  params: string
): string {
  const f = (v: string | null | undefined): string => (v === undefined || v === null || v === '' ? '-' : v)
  return [
    `env=${environment}`,
    `gpu=${f(facts?.gpu_name)}`,
    `driver=${f(facts?.driver)}`,
    `image=${f(facts?.image_digest)}`,
    `access=${f(facts?.gpu_access)}`,
    `device=${f(facts?.device)}`,
    `workload=${workload}`,
    `params=${paramsHash(params)}`,
    // Only when known, so keys written before stacks were recorded keep matching.
    ...(facts?.stack ? [`stack=${facts.stack}`] : [])
  ].join('|')
}

/** The arm's facts for one workload: its fingerprint plus the stack that workload ran on. */
export function factsFor(current: CurrentResults, environment: string, workload: string): PartialFingerprint {
  const stack = current.stacks?.[environment]?.[workload]
  return { ...(current.fingerprints[environment] ?? {}), ...(stack ? { stack } : {}) }
}

/** The series of one arm running one workload config: they share a baseline entry. */
export interface SeriesGroup {
  environment: string
  workload: string
  params: string
  series: ArmSeries[]
}

/** Group series by arm and workload config. */
export function groupSeries(
  series: readonly ArmSeries[],
  environments: readonly string[] | undefined
): Map<string, SeriesGroup> {
  const groups = new Map<string, SeriesGroup>()
  for (const s of series) {
    if (environments !== undefined && !environments.includes(s.environment)) continue
    const k = `${s.environment}\u0000${s.workload}\u0000${s.params}`
    let g = groups.get(k)
    if (g === undefined)
      groups.set(k, (g = { environment: s.environment, workload: s.workload, params: s.params, series: [] }))
    g.series.push(s)
  }
  return groups
}

/**
 * The entry stored under `key`; failing that, the most recently accepted entry of the same arm and
 * workload config under another key (`exact: false`); undefined when there is none.
 */
export function findEntry(
  data: BaselineFile,
  group: SeriesGroup,
  key: string
): { entry: BaselineEntry; exact: boolean } | undefined {
  const exact = data.entries[key]
  if (exact !== undefined) return { entry: exact, exact: true }
  const hash = paramsHash(group.params)
  const latest = Object.values(data.entries)
    .filter(
      e => e.environment === group.environment && e.workload === group.workload && e.params_hash === hash
    )
    .sort((a, b) => (a.checks.at(-1)?.time ?? '').localeCompare(b.checks.at(-1)?.time ?? ''))
    .at(-1)
  return latest === undefined ? undefined : { entry: latest, exact: false }
}
