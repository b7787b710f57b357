/**
 * Group checks by their pooling key, pool the runs of each group, and analyse each group on its own.
 * Groups are never pooled with each other: a fleet of H100s and H200s gives two answers side by side,
 * not one average that belongs to neither.
 */
import { analyzeRecords } from '../analyze/index.js'
import { blockScaled } from '../results/index.js'
import { checkVerdict } from '../gate/index.js'
import type { CheckVerdict, PreflightResult, SampleRecord } from '../types/index.js'
import { VERSION } from '../util/version.js'
import { groupKeyDifferences, groupKeyOf, groupKeyString, KEY_FIELDS } from './group-key.js'
import type { AggregateGroup, AggregateReport, AggregateSourceInfo, GroupKey, ResultSource } from './types.js'
import { must } from '../util/must.js'

export interface AggregateOptions {
  maxOverheadPct: number
  alpha: number
  /** Bootstrap seed, so the same folders always give the same report. */
  seed?: number | string
}

/** Run labels after pooling: `<source>/<run>`, unique across the sources of a group. */
export function pooledRun(source: Pick<ResultSource, 'label'>, run: number | string): string {
  return `${source.label}/${run}`
}

/** A sample record whose run is relabelled `<source>/<run>`. */
export type PooledRecord = Omit<SampleRecord, 'run'> & { run: string }

/**
 * The records of a group's sources, with run labels made unique across sources. Each source (and each GPU
 * of a multi-GPU source) is a block: a host a little faster than the others in every arm adds no spread.
 */
export function poolRecords(sources: readonly ResultSource[]): PooledRecord[] {
  const labelled = sources.flatMap(s =>
    s.records.map(r => ({ ...r, run: pooledRun(s, r.run), block: `${s.label}\u0000${r.gpu ?? ''}` }))
  )
  return blockScaled(labelled, r => r.block).map(({ block: _block, ...r }) => r)
}

/** Sources grouped by key, groups in order of their first source. */
export function groupSources(sources: readonly ResultSource[]): { key: GroupKey; sources: ResultSource[] }[] {
  const groups = new Map<string, { key: GroupKey; sources: ResultSource[] }>()
  for (const s of sources) {
    const key = groupKeyOf(s.summary)
    const k = groupKeyString(key)
    const g = groups.get(k)
    if (g) g.sources.push(s)
    else groups.set(k, { key, sources: [s] })
  }
  return [...groups.values()]
}

function runsPerArm(s: ResultSource): Record<string, number> {
  const out: Record<string, number> = {}
  for (const arm of s.summary.arms) {
    const runs = new Set(s.records.filter(r => r.environment === arm.label).map(r => String(r.run)))
    out[arm.label] = runs.size
  }
  return out
}

function sourceInfo(s: ResultSource): AggregateSourceInfo {
  const first = s.summary.arms[0] ? s.summary.fingerprints[s.summary.arms[0].label] : undefined
  return {
    label: s.label,
    dir: s.dir,
    check_id: s.summary.check_id,
    host: first?.host ?? null,
    gpu_uuid: first?.gpu_uuid ?? null,
    started_at: s.summary.started_at,
    complete: s.summary.complete,
    verdict: s.summary.verdict,
    runs_per_arm: runsPerArm(s)
  }
}

/** Pooled run labels per arm in first-appearance order (the order the analysis keeps for string runs). */
function runLabels(records: readonly PooledRecord[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const r of records) {
    const list = (out[r.environment] ??= [])
    const run = String(r.run)
    if (!list.includes(run)) list.push(run)
  }
  return out
}

/** Facts outside the key that still differ within a group: pooled, but the reader should know. */
const CONTEXT_FIELDS = ['cuda', 'runtime', 'runtime_version', 'persistence_mode', 'clocks'] as const

function contextNotes(sources: readonly ResultSource[]): string[] {
  const notes: string[] = []
  const arms = sources[0]?.summary.arms ?? []
  for (const arm of arms)
    for (const field of CONTEXT_FIELDS) {
      const values = [...new Set(sources.map(s => s.summary.fingerprints[arm.label]?.[field] ?? null))]
      if (values.length > 1)
        notes.push(
          `${arm.label}: ${field} differs between sources (${values.map(v => v ?? 'unknown').join(', ')}); pooled anyway, it is not part of the key.`
        )
    }
  const configs = [
    ...new Set(sources.map(s => `${s.summary.config.workloads.join(',')} × ${s.summary.config.runs} runs`))
  ]
  if (configs.length > 1)
    notes.push(
      `Sources ran different plans (${configs.join('; ')}); each workload configuration is compared on its own.`
    )
  return notes
}

/** The closest earlier group (fewest differing key fields) and what differs. */
function nearestEarlier(
  key: GroupKey,
  earlier: readonly { id: string; key: GroupKey }[]
): AggregateGroup['not_pooled_with'] {
  let best: AggregateGroup['not_pooled_with'] = null
  for (const e of earlier) {
    const differences = groupKeyDifferences(e.key, key)
    if (best === null || differences.length < best.differences.length) best = { group: e.id, differences }
  }
  return best
}

function analyseGroup(
  id: string,
  key: GroupKey,
  sources: ResultSource[],
  opts: AggregateOptions
): Omit<AggregateGroup, 'not_pooled_with'> {
  // A group holds at least one source (groupSources), and a summary at least two arms.
  const first = must(sources[0], 'a group without sources').summary
  const arms = first.arms.map(a => a.label)
  const baselineEnv = must(arms[0], 'a summary without arms')
  const candidateEnvs = arms.slice(1)
  const records = poolRecords(sources)
  // One check: its own analysis, the numbers its report printed (after a sequential stop the repeated interval,
  // which a fixed-n analysis of its runs would not give: aggregate printed [−23, +234] where the check printed
  // another interval, issue 51). Several: their runs pooled, and the notes say so.
  const own = sources.length === 1 ? (sources[0]?.summary.analysis ?? null) : null
  const analysis =
    own !== null
      ? own
      : records.length > 0
        ? analyzeRecords(records, {
            baselineEnv,
            candidateEnvs,
            maxOverheadPct: opts.maxOverheadPct,
            alpha: opts.alpha,
            seed: opts.seed ?? 1
          })
        : null
  const preflight: PreflightResult[] = sources.flatMap(s =>
    s.summary.preflight.map(p => ({ ...p, message: `${s.label}: ${p.message}` }))
  )
  const complete = sources.every(s => s.summary.complete)
  const notes = contextNotes(sources)
  if (own === null && sources.length > 1 && analysis !== null)
    notes.push(
      `Pooled from ${sources.length} checks (${sources.map(s => s.label).join(', ')}): every run of them analysed ` +
        'as one fixed-count sample, each check a block, so the intervals here are not any one check’s (a check ' +
        'that stopped by the sequential rule printed a repeated interval, wider at the same runs).'
    )
  for (const s of sources)
    if (!s.summary.complete)
      notes.push(
        `${s.label} is incomplete (${s.summary.incomplete_reason ?? 'stopped early'}); its runs are pooled.`
      )
  const failedPreflight = sources.flatMap(s =>
    s.summary.preflight.filter(x => x.status === 'fail').map(p => `${s.label}: ${p.name}: ${p.message}`)
  )
  return {
    id,
    key,
    fingerprint: Object.fromEntries(
      arms.map(a => [a, must(first.fingerprints[a], `no fingerprint of arm ${a}`)])
    ),
    images: Object.fromEntries(first.arms.map(a => [a.label, a.image])),
    sources: sources.map(sourceInfo),
    baseline_env: baselineEnv,
    candidate_envs: candidateEnvs,
    analysis,
    verdict: checkVerdict(analysis, preflight, complete),
    runs: runLabels(records),
    failed_preflight: failedPreflight,
    notes
  }
}

/**
 * regression anywhere wins; then error (a group that vouches for nothing); then incomparable; then
 * inconclusive (a group left undecided); else pass.
 */
export function aggregateVerdict(groups: readonly Pick<AggregateGroup, 'verdict'>[]): CheckVerdict {
  for (const v of ['regression', 'error', 'incomparable', 'inconclusive'] as const)
    if (groups.some(g => g.verdict === v)) return v
  return 'pass'
}

export function aggregate(sources: readonly ResultSource[], opts: AggregateOptions): AggregateReport {
  const groups: AggregateGroup[] = []
  for (const [i, g] of groupSources(sources).entries()) {
    const id = `G${i + 1}`
    const analysed = analyseGroup(id, g.key, g.sources, opts)
    groups.push({ ...analysed, not_pooled_with: nearestEarlier(g.key, groups) })
  }
  return {
    schema: 'gpu-overhead/aggregate@1',
    tool_version: VERSION,
    created_at: new Date().toISOString(),
    verdict: aggregateVerdict(groups),
    max_overhead_pct: opts.maxOverheadPct,
    alpha: opts.alpha,
    key_fields: KEY_FIELDS,
    groups
  }
}
