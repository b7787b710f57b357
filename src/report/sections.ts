/** Renderers for each part of the report. Pure: CheckSummary in, markdown out. */
import { markdownTable } from 'markdown-table'
import type {
  CheckSummary,
  Comparison,
  Fingerprint,
  LatencyPercentiles,
  PreflightStatus,
  RunRecord
} from '../types.js'
import { STARTUP_PHASES } from '../types.js'
import { primaryComparisons, runChart } from './chart.js'
import {
  cell,
  chartNum,
  code,
  fmtDelta,
  fmtNum,
  fmtP,
  fmtPct,
  fmtPctCi,
  fmtPlain,
  fmtValue,
  inline,
  isSecretKey
} from './format.js'
import { armPair, gatingComparisons, verdictLine } from './verdict.js'

/**
 * A block of the report. `core` blocks are kept (shortened last), `chart` and `raw` blocks are dropped
 * first when the report must fit a size limit. `group` is a heading printed before the first block of it.
 */
export interface Section {
  id: string
  kind: 'verdict' | 'core' | 'chart' | 'raw'
  title: string
  group?: string
  body: string
}

type Table = string[][]

function table(rows: Table, align?: string[]): string {
  return markdownTable(rows, { align })
}

/** Raw tables are long: staggered delimiters keep them a third smaller. */
function rawTable(rows: Table, align?: string[]): string {
  return markdownTable(rows, { align, alignDelimiters: false })
}

function median(values: number[]): number | null {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b)
  if (!v.length) return null
  const mid = Math.floor(v.length / 2)
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2
}

const SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1 }

function toSeconds(value: number, unit: string): number | null {
  const scale = SECONDS[unit]
  return scale === undefined ? null : value * scale
}

/** `TTFT (ms)`, but `Output tokens/s` rather than `Output tokens/s (tokens/s)`. */
function labelWithUnit(label: string, unit: string): string {
  return cell(unit && !label.includes(unit) ? `${label} (${unit})` : label)
}

function fmtUtil(pct: number | null): string {
  return pct === null || !Number.isFinite(pct) ? '–' : `${pct.toFixed(1)}%`
}

function fmtDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–'
  if (seconds < 60) return `${fmtNum(seconds)} s`
  const m = Math.floor(seconds / 60)
  const s = Math.round(seconds - m * 60)
  return m < 60 ? `${m} min ${s} s` : `${Math.floor(m / 60)} h ${m % 60} min`
}

/** Arm labels in the order the check declared them. */
function armLabels(summary: CheckSummary): string[] {
  const labels = summary.arms.map(a => a.label)
  return labels.length ? labels : summary.config.arms
}

const VERDICT_WORDS: Record<Comparison['verdict'], string> = {
  regression: '**regression**',
  equivalent: 'equivalent',
  inconclusive: 'inconclusive',
  incomparable: 'incomparable'
}

const STATUS_WORDS: Record<PreflightStatus, string> = {
  pass: 'PASS',
  warn: 'WARN',
  fail: '**FAIL**',
  skip: 'SKIP'
}

const PHASE_LABELS: Record<string, string> = {
  launch: 'Launch / container start',
  interpreter: 'Interpreter start',
  imports: 'Imports',
  device_init: 'CUDA / device init',
  first_kernel: 'First kernel'
}

const LATENCY_ORDER = ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms', 'tokens_per_s']
const LATENCY_LABELS: Record<string, string> = {
  ttft_ms: 'TTFT',
  tpot_ms: 'TPOT',
  itl_ms: 'ITL',
  e2e_ms: 'E2E latency',
  tokens_per_s: 'Output tokens/s'
}

// ---- verdict ----

export function verdictSection(summary: CheckSummary): Section {
  const c = summary.config
  const meta = [
    'gpu-overhead-action',
    `check ${code(summary.check_id)}`,
    c.image ? `image ${code(c.image)}` : null,
    `${c.runs} runs per arm`,
    `arms ${armLabels(summary).map(code).join(' vs ')}`,
    `device ${c.device}${c.device === 'gpu' ? ` (${c.gpu_access})` : ''}`,
    `max overhead ${fmtPlain(c.max_overhead_pct)}%`,
    `took ${fmtDuration(summary.wall_s)}`
  ].filter((x): x is string => x !== null)
  return {
    id: 'verdict',
    kind: 'verdict',
    title: 'Verdict',
    // The verdict is the first line: the CLI prints it, and it is what a reviewer reads first.
    body: `${verdictLine(summary)}\n\n<sub>${inline(meta.join(' · '))}</sub>`
  }
}

export function warningsSection(summary: CheckSummary): Section | null {
  if (!summary.warnings.length) return null
  return {
    id: 'warnings',
    kind: 'core',
    title: 'Warnings',
    body: `### Warnings\n\n${summary.warnings.map(w => `- ${inline(w)}`).join('\n')}`
  }
}

// ---- steady-state overhead ----

function sentence(text: string): string {
  const t = inline(text).trim()
  return /[.!?]$/.test(t) ? t : `${t}.`
}

/** Why each non-equivalent metric got its verdict; metrics sharing a reason share a line. */
function comparisonNotes(list: Comparison[], maxOverhead: number): string {
  const groups = new Map<string, Comparison[]>()
  for (const c of list.filter(c => c.verdict !== 'equivalent')) {
    const key = `${c.verdict}\u0000${c.reason}`
    groups.set(key, [...(groups.get(key) ?? []), c])
  }
  return [...groups.values()]
    .map(group => {
      const first = group[0]!
      const names = group.map(c => code(`${c.workload} ${c.metric}`)).join(', ')
      let text = `- ${names} ${first.verdict}: ${sentence(first.reason)}`
      if (first.verdict === 'inconclusive') {
        const mde = group.map(c => `${fmtNum(c.mde_pct)}%`).join(' / ')
        text += ` Smallest detectable effect ${mde} at ${first.n_baseline}+${first.n_candidate} runs`
        const needed = Math.max(...group.map(c => c.runs_needed ?? 0))
        text += needed ? `; ~${needed} runs per arm would resolve ±${fmtPlain(maxOverhead)}%.` : '.'
      }
      return text
    })
    .join('\n')
}

export function overheadSection(summary: CheckSummary): Section {
  const gating = gatingComparisons(summary)
  let body = '## Steady-state overhead (gated)\n\n'
  if (!summary.analysis) {
    body +=
      'Nothing was analysed: no steady-state samples reached the analysis (see preflight and not measured).'
  } else if (!gating.length) {
    body += 'No steady-state metric was compared.'
  } else {
    const pair = armPair(gating)
    const head = pair
      ? [`${cell(pair.baseline)} (median)`, `${cell(pair.candidate)} (median)`]
      : ['Baseline (median)', 'Candidate (median)']
    const rows: Table = [['Workload', 'Metric', ...head, 'Overhead [95% CI]', 'p (Holm)', 'Verdict']]
    // What needs attention first, so a trimmed table still shows it.
    const rank: Record<Comparison['verdict'], number> = {
      regression: 0,
      incomparable: 1,
      inconclusive: 2,
      equivalent: 3
    }
    for (const c of [...gating].sort((a, b) => rank[a.verdict] - rank[b.verdict])) {
      const base = fmtValue(c.median_baseline, c.unit)
      const cand = fmtValue(c.median_candidate, c.unit)
      rows.push([
        cell(c.workload),
        cell(c.metric),
        pair ? base : `${cell(c.baseline_env)}: ${base}`,
        pair ? cand : `${cell(c.candidate_env)}: ${cand}`,
        fmtPctCi(c.overhead_pct, c.ci95),
        fmtP(c.p_adjusted),
        VERDICT_WORDS[c.verdict]
      ])
    }
    body += table(rows, ['l', 'l', 'r', 'r', 'r', 'r', 'l'])
    const notes = comparisonNotes(gating, summary.analysis.max_overhead_pct)
    if (notes) body += `\n\n${notes}`
  }
  return { id: 'overhead', kind: 'core', title: 'Steady-state overhead', body }
}

// ---- start-up vs steady state ----

function measuredRuns(summary: CheckSummary): RunRecord[] {
  return summary.runs.filter(r => !r.warmup && r.status === 'ok')
}

/** Median whole-process wall time of a workload in one arm, seconds. */
function processWall(summary: CheckSummary, workload: string, env: string): number | null {
  const walls = measuredRuns(summary)
    .filter(r => r.workload === workload && r.environment === env)
    .map(r => (r.end_ms - r.start_ms) / 1000)
  return median(walls)
}

function phaseRank(metric: string): number {
  const i = (STARTUP_PHASES as readonly string[]).indexOf(metric)
  return i === -1 ? STARTUP_PHASES.length : i
}

function startupLead(summary: CheckSummary, workload: string, phases: Comparison[]): string | null {
  const first = phases[0]
  if (!first) return null
  const base = processWall(summary, workload, first.baseline_env)
  const cand = processWall(summary, workload, first.candidate_env)
  let added = 0
  for (const c of phases) {
    const d = toSeconds(c.median_candidate - c.median_baseline, c.unit)
    if (d !== null) added += d
  }
  const parts: string[] = []
  if (base !== null && cand !== null)
    parts.push(
      `${workload}: the whole process took ${fmtValue(base, 's')} in ${first.baseline_env} and ${fmtValue(cand, 's')} in ${first.candidate_env} (${fmtDelta(cand - base, 's')})`
    )
  parts.push(`start-up phases account for ${fmtDelta(added, 's')}`)
  const steady = primaryComparisons(summary).find(c => c.workload === workload)
  if (steady)
    parts.push(`steady state (${steady.metric}) differs by ${fmtPctCi(steady.overhead_pct, steady.ci95)}`)
  return `${inline(parts.join('; '))}.`
}

export function startupSection(summary: CheckSummary): Section | null {
  const startup = summary.analysis?.comparisons.filter(c => c.scope === 'startup') ?? []
  if (!startup.length) return null
  const workloads = [...new Set(startup.map(c => c.workload))]
  const pair = armPair(startup)
  const head = pair ? [cell(pair.baseline), cell(pair.candidate)] : ['Baseline', 'Candidate']
  const rows: Table = [['Workload', 'Phase', ...head, 'Difference', 'Relative']]
  const leads: string[] = []
  for (const w of workloads) {
    const phases = startup
      .filter(c => c.workload === w)
      .sort((a, b) => phaseRank(a.metric) - phaseRank(b.metric))
    for (const c of phases) {
      rows.push([
        cell(w),
        cell(PHASE_LABELS[c.metric] ?? c.metric),
        fmtValue(c.median_baseline, c.unit),
        fmtValue(c.median_candidate, c.unit),
        fmtDelta(c.median_candidate - c.median_baseline, c.unit),
        fmtPct(c.overhead_pct)
      ])
    }
    const first = phases[0]
    if (first) {
      const base = processWall(summary, w, first.baseline_env)
      const cand = processWall(summary, w, first.candidate_env)
      if (base !== null && cand !== null)
        rows.push([
          cell(w),
          '*Whole process (wall)*',
          fmtValue(base, 's'),
          fmtValue(cand, 's'),
          fmtDelta(cand - base, 's'),
          fmtPct((cand / base - 1) * 100)
        ])
    }
    const lead = startupLead(summary, w, phases)
    if (lead) leads.push(`- ${lead}`)
  }
  const body = [
    '## Start-up vs steady state',
    'Start-up is paid once per process (container launch, interpreter, imports, CUDA init, first kernel). ' +
      'It is reported here and never gates: timing a whole process around a short kernel measures start-up, not GPU work. ' +
      'Medians per arm.',
    leads.join('\n'),
    table(rows, ['l', 'l', 'r', 'r', 'r', 'r'])
  ]
    .filter(Boolean)
    .join('\n\n')
  return { id: 'startup', kind: 'core', title: 'Start-up vs steady state', body }
}

// ---- LLM latency ----

export function latencySection(summary: CheckSummary): Section | null {
  if (!summary.latency.length) return null
  const envs = armLabels(summary).filter(e => summary.latency.some(l => l.environment === e))
  for (const l of summary.latency) if (!envs.includes(l.environment)) envs.push(l.environment)
  const keys: { workload: string; metric: string }[] = []
  for (const l of summary.latency)
    if (!keys.some(k => k.workload === l.workload && k.metric === l.metric))
      keys.push({ workload: l.workload, metric: l.metric })
  const rank = (m: string): number => {
    const i = LATENCY_ORDER.indexOf(m)
    return i === -1 ? LATENCY_ORDER.length : i
  }
  keys.sort((a, b) => a.workload.localeCompare(b.workload) || rank(a.metric) - rank(b.metric))
  // One workload (the usual case) needs no workload column.
  const several = new Set(keys.map(k => k.workload)).size > 1
  const head = [
    ...(several ? ['Workload'] : []),
    'Metric',
    ...envs.flatMap(e => ['p50', 'p90', 'p99'].map(p => `${cell(e)} ${p}`)),
    'n'
  ]
  const rows: Table = [head]
  for (const k of keys) {
    const per = envs.map(e =>
      summary.latency.find(l => l.workload === k.workload && l.metric === k.metric && l.environment === e)
    )
    const unit = per.find(l => l)?.unit ?? ''
    const vals = (l: LatencyPercentiles | undefined): string[] =>
      l ? [fmtNum(l.p50), fmtNum(l.p90), fmtNum(l.p99)] : ['–', '–', '–']
    rows.push([
      ...(several ? [cell(k.workload)] : []),
      labelWithUnit(LATENCY_LABELS[k.metric] ?? k.metric, unit),
      ...per.flatMap(vals),
      per.map(l => (l ? String(l.n) : '–')).join(' / ')
    ])
  }
  const defs = [
    '- **TTFT** (time to first token): request start → first output token.',
    '- **TPOT** (time per output token): (E2E − TTFT) / (output tokens − 1).',
    '- **ITL** (inter-token latency): each gap between consecutive output tokens.',
    '- **E2E latency**: request start → last token. **Output tokens/s**: output tokens / E2E, per request.',
    '- For scale: MLPerf llama2-70b server limits are TTFT p99 2000 ms and TPOT p99 200 ms.'
  ].join('\n')
  const align = head.map((_, i) => (i < (several ? 2 : 1) ? 'l' : 'r'))
  const body = `## LLM latency\n\n${table(rows, align)}\n\n${defs}`
  return { id: 'latency', kind: 'core', title: 'LLM latency', body }
}

// ---- telemetry ----

export function telemetrySection(summary: CheckSummary): Section | null {
  if (!summary.telemetry.length) return null
  const rows: Table = [
    ['Workload', 'Arm', 'GPU util', 'SM clock', 'Power', 'Energy / run', 'EDP / run', 'Throttled samples']
  ]
  const sources = new Set<string>()
  for (const t of summary.telemetry) {
    if (t.energy_source) sources.add(t.energy_source)
    rows.push([
      cell(t.workload),
      cell(t.environment),
      fmtUtil(t.mean_util_pct),
      fmtValue(t.mean_sm_clock_mhz, 'MHz'),
      fmtValue(t.mean_power_w, 'W'),
      fmtValue(t.energy_j_per_run, 'J'),
      fmtValue(t.edp_js, 'J·s'),
      `${t.throttled_samples} / ${t.samples}`
    ])
  }
  const how =
    'Means over the measured region of each run (warm-ups excluded). EDP = energy × delay per run; lower is better.' +
    (sources.size
      ? ` Energy from ${[...sources].map(s => (s === 'nvml' ? 'the NVML energy counter' : 'integrated power draw')).join(' and ')}.`
      : '')
  return {
    id: 'telemetry',
    kind: 'core',
    title: 'GPU telemetry',
    body: `## GPU telemetry\n\n${table(rows, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'])}\n\n${how}`
  }
}

// ---- preflight ----

export function preflightSection(summary: CheckSummary): Section {
  let body = '## Preflight\n\n'
  if (!summary.preflight.length) body += 'No preflight checks ran.'
  else {
    const rows: Table = [['Check', 'Status', 'Result', 'Fix']]
    for (const p of summary.preflight)
      rows.push([cell(p.name), STATUS_WORDS[p.status], cell(p.message), p.fix ? cell(p.fix) : ''])
    body += table(rows)
  }
  return { id: 'preflight', kind: 'core', title: 'Preflight', body }
}

// ---- baseline ----

export function baselineSection(summary: CheckSummary): Section {
  const b = summary.baseline
  let body = '## Baseline comparison\n\n'
  if (!b) body += 'No baseline was configured for this check.'
  else {
    body += `${inline(b.message)} (${code(b.path)}, status ${b.status}).`
    if (b.status === 'compared' && b.comparisons.length) {
      const rows: Table = [
        [
          'Workload',
          'Metric',
          'Arm',
          'Stored (median)',
          'Current (median)',
          'Change [95% CI]',
          'p (Holm)',
          'Verdict'
        ]
      ]
      for (const c of b.comparisons)
        rows.push([
          cell(c.workload),
          cell(c.metric),
          cell(c.candidate_env),
          fmtValue(c.median_baseline, c.unit),
          fmtValue(c.median_candidate, c.unit),
          fmtPctCi(c.overhead_pct, c.ci95),
          fmtP(c.p_adjusted),
          VERDICT_WORDS[c.verdict]
        ])
      body += `\n\n${table(rows, ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'l'])}`
    }
    body += b.saved ? '\n\nThis run was added to the baseline.' : ''
  }
  return { id: 'baseline', kind: 'core', title: 'Baseline comparison', body }
}

// ---- environment ----

const FINGERPRINT_FIELDS: { key: keyof Fingerprint; label: string; mustMatch: boolean }[] = [
  { key: 'host', label: 'Host', mustMatch: true },
  { key: 'device', label: 'Device', mustMatch: true },
  { key: 'gpu_name', label: 'GPU', mustMatch: true },
  { key: 'gpu_uuid', label: 'GPU UUID', mustMatch: true },
  { key: 'driver', label: 'Driver', mustMatch: true },
  { key: 'cuda', label: 'CUDA', mustMatch: false },
  { key: 'image', label: 'Image', mustMatch: false },
  { key: 'image_digest', label: 'Image digest', mustMatch: false },
  { key: 'runtime', label: 'Runtime', mustMatch: false },
  { key: 'runtime_version', label: 'Runtime version', mustMatch: false },
  { key: 'gpu_access', label: 'GPU access', mustMatch: false },
  { key: 'mig_mode', label: 'MIG mode', mustMatch: true },
  { key: 'persistence_mode', label: 'Persistence mode', mustMatch: true },
  { key: 'clocks', label: 'Clocks', mustMatch: true }
]

function workloadParams(summary: CheckSummary): string[] {
  const lines: string[] = []
  for (const w of summary.config.workloads) {
    const run = summary.runs.find(r => r.workload === w && !r.warmup)
    if (!run) continue
    const params = Object.entries(run.params)
      .filter(([k]) => !isSecretKey(k))
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    if (params.length) lines.push(`- ${code(w)}: ${inline(params.join(', '))}`)
  }
  return lines
}

export function environmentSection(summary: CheckSummary): Section {
  const envs = armLabels(summary).filter(e => summary.fingerprints[e])
  for (const e of Object.keys(summary.fingerprints)) if (!envs.includes(e)) envs.push(e)
  let body = '## Environment\n\n'
  if (!envs.length) body += 'No environment fingerprint was recorded.'
  else {
    const rows: Table = [['Field', ...envs.map(cell)]]
    let differs = false
    for (const f of FINGERPRINT_FIELDS) {
      const values = envs.map(e => summary.fingerprints[e]?.[f.key] ?? null)
      const mismatch = f.mustMatch && new Set(values.map(v => String(v))).size > 1
      differs ||= mismatch
      const show = (v: string | null): string => {
        const text =
          v === null ? '–' : ['image', 'image_digest', 'gpu_uuid'].includes(f.key) ? code(v) : cell(v)
        return mismatch ? `**${text}**` : text
      }
      rows.push([mismatch ? `**${f.label}** (differs)` : f.label, ...values.map(show)])
    }
    body += table(rows)
    if (differs) body += '\n\nFields in bold must match for the arms to be comparable.'
  }
  const params = workloadParams(summary)
  if (params.length) body += `\n\nWorkload parameters:\n\n${params.join('\n')}`
  body += `\n\n<sub>gpu-overhead-action ${inline(summary.tool_version)} · started ${inline(summary.started_at)} · finished ${inline(summary.finished_at)}</sub>`
  return { id: 'environment', kind: 'core', title: 'Environment', body }
}

// ---- charts ----

export function chartSections(summary: CheckSummary): Section[] {
  const out: Section[] = []
  for (const c of primaryComparisons(summary)) {
    const chart = runChart(summary, c)
    if (chart)
      out.push({
        id: `chart:${c.workload}:${c.metric}`,
        kind: 'chart',
        title: `chart of ${c.workload} ${c.metric}`,
        group:
          '## Per-run values\n\nOne point per process run (the run’s median over its iterations), in schedule order; the y axis spans the data, so small spreads look large.',
        body: chart
      })
  }
  return out
}

// ---- not measured, definitions ----

export function notMeasuredSection(summary: CheckSummary): Section {
  const items = summary.not_measured.map(n => `- **${inline(n.what)}**: ${inline(n.why)}`)
  const failed = summary.runs.filter(r => r.status !== 'ok')
  if (failed.length) {
    const byKind = new Map<string, number>()
    for (const r of failed)
      byKind.set(
        `${r.workload} ${r.environment} (${r.status})`,
        (byKind.get(`${r.workload} ${r.environment} (${r.status})`) ?? 0) + 1
      )
    const list = [...byKind].map(([k, n]) => `${k} ×${n}`).join(', ')
    items.push(`- **Runs that did not finish**: ${inline(list)}; their samples are not in the statistics.`)
  }
  const body = `## Not measured\n\n${items.length ? items.join('\n') : 'Everything planned was measured.'}`
  return { id: 'not-measured', kind: 'core', title: 'Not measured', body }
}

export function definitionsSection(summary: CheckSummary): Section {
  const m = fmtPlain(summary.analysis?.max_overhead_pct ?? summary.config.max_overhead_pct)
  const alpha = fmtPlain(summary.analysis?.alpha ?? summary.config.alpha)
  const body = [
    '## How to read this\n',
    `- **Overhead**: how much worse the candidate (e.g. the container) is than the baseline (e.g. native): candidate / baseline − 1 for times, baseline / candidate − 1 for throughput; positive means the candidate costs more. The 95% CI is a bootstrap CI of the ratio of means.`,
    `- **p (Holm)**: Welch’s t-test, Holm-corrected across the gated metrics of this report (Mann–Whitney U is computed as a check).`,
    `- **regression**: p (Holm) < ${alpha} **and** the CI’s lower end is above the ${m}% limit. **equivalent**: TOST shows the overhead within ±${m}%. **inconclusive**: neither; more runs would decide (the smallest detectable effect is given). **incomparable**: the arms’ fingerprints differ in something that matters (GPU, driver, clocks, MIG…), so no regression verdict is given.`,
    '- Arms run interleaved (A B B A …) so drift and heat hit both alike; warm-up runs are excluded; samples taken while the GPU was throttled are flagged.',
    '- Only steady-state metrics gate; start-up phases are reported.'
  ].join('\n')
  return { id: 'definitions', kind: 'core', title: 'How to read this', body }
}

// ---- raw data ----

const RAW_GROUP = '## Raw data'

function details(summaryLine: string, content: string): string {
  return `<details>\n<summary>${summaryLine}</summary>\n\n${content}\n\n</details>`
}

export function rawSections(summary: CheckSummary): Section[] {
  const out: Section[] = []
  // One table per workload: a row per run, a column per (metric, arm).
  for (const w of [...new Set(summary.series.map(s => s.workload))]) {
    const series = summary.series.filter(s => s.workload === w)
    const n = Math.max(...series.map(s => s.values.length))
    const rows: Table = [
      ['Run', ...series.map(s => `${cell(s.metric)} ${cell(s.environment)} (${cell(s.unit)})`)]
    ]
    for (let i = 0; i < n; i++)
      rows.push([String(i + 1), ...series.map(s => (i < s.values.length ? chartNum(s.values[i]!) : ''))])
    const metrics = [...new Set(series.map(s => s.metric))].join(', ')
    out.push({
      id: `raw:${w}`,
      kind: 'raw',
      title: `per-run ${w} values`,
      group: RAW_GROUP,
      body: details(
        `Per-run values: ${inline(w)} (${inline(metrics)}; ${n} runs)`,
        rawTable(
          rows,
          rows[0]!.map(() => 'r')
        )
      )
    })
  }
  if (summary.runs.length) {
    const rows: Table = [
      [
        'Workload',
        'Arm',
        'Run',
        'Warm-up',
        'Status',
        'Wall',
        'GPU util',
        'Power',
        'Energy',
        'Throttled',
        'Error'
      ]
    ]
    for (const r of summary.runs)
      rows.push([
        cell(r.workload),
        cell(r.environment),
        String(r.run),
        r.warmup ? 'yes' : '',
        r.status,
        fmtValue((r.end_ms - r.start_ms) / 1000, 's'),
        fmtUtil(r.mean_util_pct),
        fmtValue(r.mean_power_w, 'W'),
        fmtValue(r.energy_j, 'J'),
        `${r.throttled_samples} / ${r.telemetry_samples}`,
        r.error ? cell(r.error.slice(0, 200)) : ''
      ])
    out.push({
      id: 'raw:runs',
      kind: 'raw',
      title: 'process runs table',
      group: RAW_GROUP,
      body: details(`Process runs (${summary.runs.length}, in schedule order)`, rawTable(rows))
    })
  }
  return out
}
