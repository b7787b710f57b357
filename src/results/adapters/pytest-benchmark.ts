/**
 * pytest-benchmark's `--benchmark-json` file: `benchmarks[]`, each with `fullname` and `stats` (seconds).
 * `stats.data` holds every round's time (one sample per round); when a file has none (saved without
 * data), `stats.median` stands for the run. Lower is better.
 */
import type { JsonSource, SampleRow } from './json-file.js'

export function pytestBenchmarkRows(src: JsonSource, doc: unknown): SampleRow[] {
  const rows: SampleRow[] = []
  for (const { entry: bench, at } of src.entries(doc, 'benchmarks', {
    doc: 'pytest --benchmark-json output: {"benchmarks": [...]}',
    list: 'one entry per benchmark test',
    entry: 'a benchmark: fullname, stats'
  })) {
    const workload = src.name(bench.fullname ?? bench.name, `${at}.fullname`, 'the test id')
    const stats = src.object(bench.stats, `${at}.stats`, 'timing statistics in seconds')
    const data =
      stats.data === undefined
        ? [stats.median]
        : src.list(stats.data, `${at}.stats.data`, 'the time of each round, in seconds', Infinity)
    src.count(data.length, `${at}.stats.data`)
    if (data.length === 0) throw src.error(`${at}.stats.data`, 'an empty list', 'at least one round')
    const path = stats.data === undefined ? `${at}.stats.median` : `${at}.stats.data`
    data.forEach((t, k) =>
      rows.push({
        workload,
        metric: 'time',
        value: src.number(t, stats.data === undefined ? path : `${path}[${k}]`, 'seconds'),
        unit: 's',
        better: 'lower',
        iteration: k
      })
    )
  }
  return rows
}
