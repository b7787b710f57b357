/**
 * hyperfine's `--export-json` file: `results[]`, one per command, each with `command` (or the
 * `--command-name`), `times` (seconds, one per timed run), `exit_codes` and, with a parameter scan,
 * `parameters`. The times are the samples; lower is better.
 */
import type { JsonSource, SampleRow } from './json-file.js'

/** One benchmarked command of a hyperfine export: its name and its timed runs (seconds). */
export interface HyperfineCommand {
  command: string
  times: number[]
  params?: Record<string, unknown>
}

/** The file's commands, each checked (every timed run succeeded) — what hyperfineRows and the arms reader read. */
export function hyperfineCommands(src: JsonSource, doc: unknown): HyperfineCommand[] {
  return hyperfineRows(src, doc).reduce<HyperfineCommand[]>((acc, row) => {
    const last = acc[acc.length - 1]
    if (last !== undefined && last.command === row.workload && row.iteration !== 0) last.times.push(row.value)
    else
      acc.push({ command: row.workload, times: [row.value], ...(row.params ? { params: row.params } : {}) })
    return acc
  }, [])
}

export function hyperfineRows(src: JsonSource, doc: unknown): SampleRow[] {
  const rows: SampleRow[] = []
  for (const { entry: result, at } of src.entries(doc, 'results', {
    doc: 'hyperfine --export-json output: {"results": [...]}',
    list: 'one entry per benchmarked command',
    entry: 'a benchmarked command: command, times, exit_codes'
  })) {
    const workload = src.name(result.command, `${at}.command`, 'the command or its --command-name')
    const times = src.list(result.times, `${at}.times`, 'the wall time of each run, in seconds', Infinity)
    src.count(times.length, `${at}.times`)
    if (times.length === 0) throw src.error(`${at}.times`, 'an empty list', 'at least one timed run')
    if (result.exit_codes !== undefined) {
      const codes = src.list(result.exit_codes, `${at}.exit_codes`, 'one exit code per run', times.length)
      codes.forEach((code, k) => {
        // A failed command's time is not a measurement of the work (hyperfine -i keeps them).
        if (code !== 0) throw src.error(`${at}.exit_codes[${k}]`, code, '0 (every timed run succeeded)')
      })
    }
    const params =
      result.parameters === undefined || result.parameters === null
        ? undefined
        : src.object(result.parameters, `${at}.parameters`, 'the --parameter-scan/--parameter-list values')
    times.forEach((t, k) =>
      rows.push({
        workload,
        metric: 'time',
        value: src.number(t, `${at}.times[${k}]`, 'seconds'),
        unit: 's',
        better: 'lower',
        iteration: k,
        ...(params === undefined ? {} : { params })
      })
    )
  }
  return rows
}
