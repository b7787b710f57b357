/** Renderers for each part of the report. Pure: CheckSummary in, markdown out. */
import type {
  CheckSummary,
  Comparison,
  Fingerprint,
  LatencyPercentiles,
  PreflightStatus
} from '../types/index.js'
import { armLabels, armRank } from './arms.js'
import { primaryComparisons, runChart } from './chart.js'
import { comparisonTable } from './comparison-table.js'
import {
  SCOPE_WORD,
  cell,
  chartNum,
  code,
  fmtNum,
  fmtP,
  fmtPlain,
  fmtValue,
  fmtOverheadCi,
  inline,
  isSecretKey,
  metricLabel
} from './format.js'
import { analysisNotes } from './notes.js'
import type { Table } from './table.js'
import { dropEmptyColumns, rawTable, table } from './table.js'
import { armPair, gatingComparisons, verdictLine } from './verdict.js'
import { maxOf } from '../util/arrays.js'

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
  /**
   * A few lines for the compact PR comment (report/comment-body.ts), when the section has something a reviewer
   * must see there (e.g. the explainer's "why the arms differ"). Sections without one stay in the job summary.
   */
  short?: string
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

const VERDICT_WORDS: Record<Comparison['verdict'], string> = {
  regression: '**regression**',
  improvement: 'improvement',
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

/** Whether the smallest detectable effect was computed (not a placeholder for n < 2 or zero spread). */
function hasMde(c: Comparison): boolean {
  return c.mde_pct > 0 && Number.isFinite(c.mde_pct) && !(c.undefined_stats ?? []).includes('mde_pct')
}

/**
 * What the table cannot say. Regressions and equivalences need no note (the table and the verdict line
 * say it all); inconclusive metrics get what would resolve them, incomparable ones why (shared reasons
 * share a line).
 */
function comparisonNotes(list: Comparison[], maxOverhead: number, arms: boolean): string[] {
  const name = (c: Comparison): string =>
    code(`${c.workload} ${c.metric}`) + (arms ? ` (${inline(c.candidate_env)})` : '')
  const lines: string[] = []
  for (const c of list.filter(x => x.verdict === 'inconclusive')) {
    if (!hasMde(c)) {
      lines.push(`- ${name(c)} inconclusive: ${sentence(c.reason)}`)
      continue
    }
    const runs = c.runs_needed
      ? `; ~${c.runs_needed} runs per arm would resolve ±${fmtPlain(maxOverhead)}%`
      : ''
    lines.push(
      `- ${name(c)} inconclusive: smallest detectable effect ${fmtNum(c.mde_pct)}% at ${c.n_baseline}+${c.n_candidate} runs${runs}.`
    )
  }
  const groups = new Map<string, Comparison[]>()
  for (const c of list.filter(x => x.verdict === 'incomparable'))
    groups.set(c.reason, [...(groups.get(c.reason) ?? []), c])
  for (const group of groups.values())
    lines.push(`- ${group.map(name).join(', ')} incomparable: ${sentence(group[0]!.reason)}`)
  return lines
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
    body += comparisonTable(gating, { armRank: armRank(summary), words: VERDICT_WORDS, holm: true })
    const notes = [
      ...comparisonNotes(gating, summary.analysis.max_overhead_pct, armPair(gating) === null),
      ...analysisNotes(summary, 'steady')
    ]
    if (notes.length) body += `\n\n${notes.join('\n')}`
  }
  return { id: 'overhead', kind: 'core', title: 'Steady-state overhead', body }
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
  const find = (k: { workload: string; metric: string }, e: string): LatencyPercentiles | undefined =>
    summary.latency.find(l => l.workload === k.workload && l.metric === k.metric && l.environment === e)
  const defs = [
    '- **TTFT** (time to first token): request start → first output token.',
    '- **TPOT** (time per output token): (E2E − TTFT) / (output tokens − 1).',
    '- **ITL** (inter-token latency): each gap between consecutive output tokens.',
    '- **E2E latency**: request start → last token. **Output tokens/s**: output tokens / E2E, per request.',
    '- For scale: MLPerf llama2-70b server limits are TTFT p99 2000 ms and TPOT p99 200 ms.'
  ].join('\n')
  if (envs.length > 2) {
    // Three columns per arm would not fit: a row per metric and arm instead.
    const rows: Table = [[...(several ? ['Workload'] : []), 'Metric', 'Arm', 'p50', 'p90', 'p99', 'n']]
    for (const k of keys)
      for (const e of envs) {
        const l = find(k, e)
        if (!l) continue
        rows.push([
          ...(several ? [cell(k.workload)] : []),
          labelWithUnit(LATENCY_LABELS[k.metric] ?? k.metric, l.unit),
          cell(e),
          fmtNum(l.p50),
          fmtNum(l.p90),
          fmtNum(l.p99),
          String(l.n)
        ])
      }
    const align = rows[0]!.map((_, i) => (i < (several ? 3 : 2) ? 'l' : 'r'))
    return {
      id: 'latency',
      kind: 'core',
      title: 'LLM latency',
      body: `## LLM latency\n\n${table(rows, align)}\n\n${defs}`
    }
  }
  const head = [
    ...(several ? ['Workload'] : []),
    'Metric',
    ...envs.flatMap(e => ['p50', 'p90', 'p99'].map(p => `${cell(e)} ${p}`)),
    'n'
  ]
  const rows: Table = [head]
  for (const k of keys) {
    const per = envs.map(e => find(k, e))
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
  const align = head.map((_, i) => (i < (several ? 2 : 1) ? 'l' : 'r'))
  const body = `## LLM latency\n\n${table(rows, align)}\n\n${defs}`
  return { id: 'latency', kind: 'core', title: 'LLM latency', body }
}

// ---- telemetry ----

/** What nvidia-smi's utilization.gpu is, since it is so often read as "how much of the GPU was used". */
export const NVML_UTIL_MEANING =
  'GPU util is NVML’s utilization.gpu: the share of each sample period during which at least one kernel was running — not how many SMs it kept busy (one small kernel running all the time reads 100%).'

export function telemetrySection(summary: CheckSummary): Section | null {
  if (!summary.telemetry.length) return null
  const perGpu = new Set(summary.telemetry.map(t => t.gpu)).size > 1
  const rows: Table = [
    [
      'Workload',
      'Arm',
      ...(perGpu ? ['GPU'] : []),
      'GPU util',
      'SM clock',
      'Power',
      'Energy / run',
      'EDP / run',
      'Throttled samples',
      'GPU util, whole process'
    ]
  ]
  const sources = new Set<string>()
  const ordered = perGpu
    ? [...summary.telemetry].sort(
        (a, b) =>
          a.workload.localeCompare(b.workload) ||
          armRank(summary)(a.environment) - armRank(summary)(b.environment) ||
          (a.gpu ?? 0) - (b.gpu ?? 0)
      )
    : summary.telemetry
  let regions = 0
  for (const t of ordered) {
    if (t.energy_source) sources.add(t.energy_source)
    // The measured region the workload marked; the whole process (start-up included) otherwise.
    const r = t.region
    if (r) regions++
    rows.push([
      cell(t.workload),
      cell(t.environment),
      ...(perGpu ? [t.gpu === undefined ? '–' : String(t.gpu)] : []),
      fmtUtil(r ? r.util_pct : t.mean_util_pct),
      fmtValue(r ? r.sm_clock_mhz : t.mean_sm_clock_mhz, 'MHz'),
      fmtValue(r ? r.power_w : t.mean_power_w, 'W'),
      fmtValue(t.energy_j_per_run, 'J'),
      fmtValue(t.edp_js, 'J·s'),
      r
        ? `${r.throttled_samples} / ${r.samples}${r.reasons.length ? ` (${r.reasons.join(', ')})` : ''}`
        : t.samples
          ? `${t.throttled_samples} / ${t.samples}`
          : '–',
      r ? fmtUtil(t.mean_util_pct) : '–'
    ])
  }
  // Telemetry off still leaves energy (NVML counter): drop the columns it did not fill.
  const labels = perGpu ? 3 : 2
  const shown = dropEmptyColumns(rows, [
    'l',
    'l',
    ...(perGpu ? ['r'] : []),
    'r',
    'r',
    'r',
    'r',
    'r',
    'r',
    'r'
  ])
  // Nothing measured (device cpu, telemetry off, no NVML): no section rather than a table of labels.
  if ((shown.rows[0]?.length ?? 0) <= labels) return null
  const window =
    regions === ordered.length
      ? 'Util, SM clock, power and throttling: means over the measured region each workload marked (warm-ups and start-up excluded); the last column is the whole process, start-up included.'
      : regions === 0
        ? 'Means over each whole process (start-up included: these workloads marked no measured region), warm-up runs excluded.'
        : 'Rows with a whole-process column: means over the measured region the workload marked; the others: over the whole process (start-up included).'
  const how =
    `${window} ${NVML_UTIL_MEANING} EDP = energy × delay per run; lower is better.` +
    (sources.size
      ? ` Energy from ${[...sources].map(s => (s === 'nvml' ? 'the NVML energy counter' : 'integrated power draw')).join(' and ')}.`
      : '') +
    (summary.power && summary.power.status !== 'skipped'
      ? ' These means span every power cap of the sweep; per cap, see Power caps.'
      : '')
  return {
    id: 'telemetry',
    kind: 'core',
    title: 'GPU telemetry',
    body: `## GPU telemetry\n\n${table(shown.rows, shown.align)}\n\n${how}`
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
    // A Fix column with nothing in it only costs width.
    body += table(summary.preflight.some(p => p.fix) ? rows : rows.map(r => r.slice(0, 3)))
  }
  return { id: 'preflight', kind: 'core', title: 'Preflight', body }
}

// ---- baseline ----

export function baselineSection(summary: CheckSummary): Section {
  const b = summary.baseline
  let body = '## Baseline comparison\n\n'
  if (!b) body += 'No baseline was configured for this check.'
  else {
    // The message often names the file already.
    const where = b.path && !b.message.includes(b.path) ? `${code(b.path)}, ` : ''
    body += `${inline(b.message).replace(/\.+\s*$/, '')} (${where}status ${b.status}).`
    if (b.status === 'compared' && b.comparisons.length) {
      const rows: Table = [
        [
          'Workload',
          'Metric',
          'Arm',
          'Stored checks',
          'Day-to-day sd',
          'Run sd',
          'Stored (mean of check means)',
          'Current (mean)',
          'Change [95% PI]',
          'p (Holm)',
          'Verdict'
        ]
      ]
      for (const c of b.comparisons)
        rows.push([
          cell(c.workload),
          cell(metricLabel(c)),
          cell(c.candidate_env),
          String(c.history?.checks ?? c.n_baseline),
          c.history ? `${fmtNum(c.history.check_sd_pct)}%` : '–',
          c.history ? `${fmtNum(c.history.run_sd_pct)}%` : '–',
          fmtValue(c.mean_baseline, c.unit),
          fmtValue(c.mean_candidate, c.unit),
          fmtOverheadCi(c),
          c.scope === 'steady' ? fmtP(c.p_adjusted) : '–',
          c.scope === 'steady' ? VERDICT_WORDS[c.verdict] : `${c.verdict} (${SCOPE_WORD[c.scope]})`
        ])
      body += `\n\n${table(rows, ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'])}`
      body +=
        '\n\nThe check is the unit: each stored check counts once (its mean), and the current check is judged ' +
        'by a t prediction interval over the stored check means, so the spread between days (**Day-to-day sd**, ' +
        'sd of the check means) widens the interval instead of showing up as a false regression.'
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
    const same: string[] = []
    let differs = false
    for (const f of FINGERPRINT_FIELDS) {
      const values = envs.map(e => summary.fingerprints[e]?.[f.key] ?? null)
      const distinct = new Set(values.map(v => String(v))).size
      const mismatch = f.mustMatch && distinct > 1
      differs ||= mismatch
      const show = (v: string | null): string => {
        const text =
          v === null ? '–' : ['image', 'image_digest', 'gpu_uuid'].includes(f.key) ? code(v) : cell(v)
        return mismatch ? `**${text}**` : text
      }
      // Recorded by no arm (GPU fields on device cpu): a row of dashes says nothing.
      if (values.every(v => v === null)) continue
      // With many arms, a value repeated in every column hides the ones that differ: say it once.
      if (envs.length > 2 && distinct === 1) {
        if (values[0] !== null) same.push(`${f.label} ${show(values[0]!)}`)
        continue
      }
      rows.push([mismatch ? `**${f.label}** (differs)` : f.label, ...values.map(show)])
    }
    if (same.length) body += `Same in every arm: ${same.join(' · ')}.\n\n`
    if (rows.length > 1) body += table(rows)
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
    `- **Overhead**: how much worse the candidate (e.g. the container) is than the baseline (e.g. native): mean(candidate) / mean(baseline) − 1 for lower-is-better metrics (↓), mean(baseline) / mean(candidate) − 1 for higher-is-better ones (↑), as each workload declares; the tables show those means; positive means the candidate costs more, a significant negative overhead beyond the margin is an **improvement**, “–” means no ratio exists (zero baseline), and from +900% on it is written as a factor (320× = 320 times the baseline’s cost). The 95% CI is of the ratio of means: a bootstrap interval, or the Welch t interval where that is wider.`,
    `- **p (Holm)**: Welch’s t-test, Holm-corrected across the gated metrics of this report (Mann–Whitney U is computed as a check).`,
    `- **regression**: p (Holm) < ${alpha} **and** the CI’s lower end is above the ${m}% limit. **equivalent**: TOST shows the overhead within ±${m}%. **inconclusive**: neither; more runs would decide (the smallest detectable effect is given). **incomparable**: the arms’ fingerprints differ in something that matters (GPU, driver, clocks, MIG…), so no regression verdict is given.`,
    '- Arms run interleaved (A B B A …) so drift and heat hit both alike; warm-up runs are excluded; samples taken while the GPU was throttled are flagged.',
    '- Only steady-state metrics gate (GPU work and the bind-mounted data path); start-up phases and the writable layer are reported, never gated.'
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
  // One table per workload: a row per run, a column per (metric, arm); turned round (a row per
  // series, a column per run) when there are more series than runs, so it stays taller than wide.
  for (const w of [...new Set(summary.series.map(s => s.workload))]) {
    const series = summary.series.filter(s => s.workload === w)
    const n = maxOf(series.map(s => s.values.length))
    const value = (s: (typeof series)[number], i: number): string =>
      i < s.values.length ? chartNum(s.values[i]!) : ''
    const runs = Array.from({ length: n }, (_, i) => i)
    const rows: Table =
      series.length > n
        ? [
            ['Metric', 'Arm', 'Unit', ...runs.map(i => `Run ${i + 1}`)],
            ...series.map(s => [
              cell(s.metric),
              cell(s.environment),
              cell(s.unit),
              ...runs.map(i => value(s, i))
            ])
          ]
        : [
            ['Run', ...series.map(s => `${cell(s.metric)} ${cell(s.environment)} (${cell(s.unit)})`)],
            ...runs.map(i => [String(i + 1), ...series.map(s => value(s, i))])
          ]
    const align = rows[0]!.map((_, i) => (series.length > n && i < 3 ? 'l' : 'r'))
    const metrics = [...new Set(series.map(s => s.metric))].join(', ')
    out.push({
      id: `raw:${w}`,
      kind: 'raw',
      title: `per-run ${w} values`,
      group: RAW_GROUP,
      body: details(`Per-run values: ${inline(w)} (${inline(metrics)}; ${n} runs)`, rawTable(rows, align))
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
        r.telemetry_samples ? `${r.throttled_samples} / ${r.telemetry_samples}` : '–',
        r.error ? cell(r.error.slice(0, 200)) : ''
      ])
    const shown = dropEmptyColumns(rows)
    out.push({
      id: 'raw:runs',
      kind: 'raw',
      title: 'process runs table',
      group: RAW_GROUP,
      body: details(`Process runs (${summary.runs.length}, in schedule order)`, rawTable(shown.rows))
    })
  }
  return out
}
