/**
 * Google Benchmark's `--benchmark_format=json` (or `--benchmark_out`) file: `benchmarks[]`, one entry per
 * repetition (`run_type: "iteration"`) plus the library's own aggregates (`run_type: "aggregate"`).
 * Repetitions are the samples; a file with aggregates only (`--benchmark_report_aggregates_only`) gives
 * its median. `real_time`/`cpu_time` are in `time_unit` (lower is better); `items_per_second` and
 * `bytes_per_second` are rates (higher) that the library computes from the entry's own time (items or bytes
 * processed over the iterations' time): functions of the time, so they are shown as derived metrics and never
 * tested again (gating them beside `real_time` would make one measurement three members of the Holm family:
 * three chances of a false regression, and a stricter level for every other gated metric). User counters have
 * no declared direction and are not read.
 */
import type { Direction } from '../../types/index.js'
import type { JsonSource, SampleRow } from './json-file.js'

const TIME_UNITS = ['ns', 'us', 'ms', 's'] as const
const METRICS: { field: string; better: Direction; unit?: string; derived?: true }[] = [
  { field: 'real_time', better: 'lower' },
  { field: 'cpu_time', better: 'lower' },
  { field: 'items_per_second', better: 'higher', unit: 'items/s', derived: true },
  { field: 'bytes_per_second', better: 'higher', unit: 'B/s', derived: true }
]

export function googleBenchmarkRows(src: JsonSource, doc: unknown): SampleRow[] {
  const top = src.object(doc, '', 'Google Benchmark JSON output: {"context": {...}, "benchmarks": [...]}')
  const entries = src.list(top.benchmarks, 'benchmarks', 'one entry per repetition or aggregate')
  src.count(entries.length * METRICS.length, 'benchmarks')
  const repetitions = new Set<string>()
  const parsed = entries.map((raw, i) => {
    const at = `benchmarks[${i}]`
    const entry = src.object(raw, at, 'a benchmark run: name, run_type, real_time, cpu_time, time_unit')
    const workload = src.name(entry.run_name ?? entry.name, `${at}.run_name`, 'the benchmark name')
    if (entry.error_occurred === true)
      throw src.error(
        `${at}.error_occurred`,
        true,
        'false (the benchmark reported an error; its times are not a measurement)'
      )
    const runType = entry.run_type ?? 'iteration'
    if (runType !== 'iteration' && runType !== 'aggregate')
      throw src.error(`${at}.run_type`, runType, "'iteration' or 'aggregate'")
    if (runType === 'iteration') repetitions.add(workload)
    return { at, entry, workload, runType }
  })
  const rows: SampleRow[] = []
  for (const { at, entry, workload, runType } of parsed) {
    // The library's mean/stddev/cv are not samples; its median stands in only when no repetition is present.
    if (runType === 'aggregate' && (repetitions.has(workload) || entry.aggregate_name !== 'median')) continue
    const rawUnit = entry.time_unit ?? 'ns'
    if (!(TIME_UNITS as readonly unknown[]).includes(rawUnit))
      throw src.error(`${at}.time_unit`, rawUnit, TIME_UNITS.join(', '))
    const timeUnit = rawUnit as (typeof TIME_UNITS)[number]
    const iteration = typeof entry.repetition_index === 'number' ? entry.repetition_index : 0
    for (const { field, better, unit, derived } of METRICS) {
      if (entry[field] === undefined) continue
      rows.push({
        workload,
        metric: field,
        value: src.number(entry[field], `${at}.${field}`, unit ?? timeUnit),
        unit: unit ?? timeUnit,
        better,
        iteration,
        ...(derived ? { scope: 'derived' as const } : {})
      })
    }
    if (entry.real_time === undefined) throw src.error(`${at}.real_time`, 'missing', `a time in ${timeUnit}`)
  }
  return rows
}
