/**
 * Result-format adapters: a tool's result file (hyperfine, pytest-benchmark, Google Benchmark,
 * `vllm bench serve`, SGLang's `bench_serving` JSONL, `trtllm-bench --report_json`, AIPerf / genai-perf,
 * github-action-benchmark's custom JSON) becomes the long format's sample rows, which
 * analysis already takes. A file is one run of one arm: `ENV=FILE` pairs name the arm, and the order of an
 * arm's files numbers its runs. The long CSV (format `csv`) keeps its own reader, one file holding every run.
 */
import {
  RESULT_FORMATS,
  type Direction,
  type JsonResultFormat,
  type ResultFormat
} from '../../types/index.js'
import { InputError } from '../../util/errors.js'
import { readResultsCsv } from '../csv/index.js'
import type { CsvResults } from '../csv/results-table.js'
import { aggregateRows, RowConflictError, type RawRow } from '../run-values/index.js'
import { customJsonRows } from './custom-json.js'
import { googleBenchmarkRows } from './google-benchmark.js'
import { hyperfineRows } from './hyperfine.js'
import { hyperfineArmRows, type HyperfineArm } from './hyperfine-arms.js'
import { JsonSource, type SampleRow } from './json-file.js'
import { pytestBenchmarkRows } from './pytest-benchmark.js'
import { vllmBenchServeRows } from './vllm-bench-serve.js'
import { sglangBenchServingRows } from './sglang-bench-serving.js'
import { trtllmBenchRows } from './trtllm-bench.js'
import { aiperfRows } from './aiperf.js'

export { RESULT_FILE_LIMITS, nestingDepth, type SampleRow } from './json-file.js'
export { parseArmSpecs, type HyperfineArm } from './hyperfine-arms.js'
export { VLLM_WORKLOAD } from './vllm-bench-serve.js'
export { SGLANG_WORKLOAD } from './sglang-bench-serving.js'
export { TRTLLM_WORKLOAD } from './trtllm-bench.js'
export { AIPERF_WORKLOAD } from './aiperf.js'

const ADAPTERS: Record<JsonResultFormat, (src: JsonSource, doc: unknown) => SampleRow[]> = {
  hyperfine: hyperfineRows,
  'pytest-benchmark': pytestBenchmarkRows,
  'google-benchmark': googleBenchmarkRows,
  'vllm-bench-serve': vllmBenchServeRows,
  'sglang-bench-serving': sglangBenchServingRows,
  'trtllm-bench': trtllmBenchRows,
  aiperf: aiperfRows,
  customSmallerIsBetter: customJsonRows('lower' satisfies Direction),
  customBiggerIsBetter: customJsonRows('higher' satisfies Direction)
}

export { RESULT_FORMATS }

/** Formats whose file is JSON Lines (one object a line, appended by the tool), not one JSON document. */
const JSON_LINES_FORMATS: ReadonlySet<JsonResultFormat> = new Set(['sglang-bench-serving'])

/** Files of one analysis: at most this many (each is read whole, up to its own cap). */
export const MAX_RESULT_FILES = 1000
const ENV_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
const INPUT_FORM =
  'ENV=FILE pairs, comma-separated or one per --input (e.g. native=run1.json,container=run1.json)'

/** What analysis needs from its input, whichever format it came in. */
export type ResultSet = Pick<CsvResults, 'environments' | 'series' | 'fingerprints' | 'notes'>

export interface ResultFile {
  environment: string
  file: string
  /** 1-based, in the order the arm's files were given. */
  run: number
}

/** The format's rows of one file (no environment, no run): what the adapter tests check. */
export function readResultFile(format: string, file: string): SampleRow[] {
  const known = checkFormat(format)
  const adapter = known === 'csv' ? undefined : ADAPTERS[known]
  if (adapter === undefined)
    throw new InputError('--format-in', format, 'a JSON result format (csv has its own reader)')
  const src = new JsonSource(file, format)
  const rows = adapter(src, JSON_LINES_FORMATS.has(known as JsonResultFormat) ? src.readLines() : src.read())
  if (rows.length === 0) throw src.error('', 'no benchmark', 'at least one benchmark with a value')
  return rows
}

export function checkFormat(format: string): ResultFormat {
  if (!(RESULT_FORMATS as readonly string[]).includes(format))
    throw new InputError('--format-in', format, RESULT_FORMATS.join(', '))
  return format as ResultFormat
}

/** `--input` values (each may hold several comma-separated pairs) → one entry per file, runs numbered per arm. */
export function parseResultInputs(specs: readonly string[]): ResultFile[] {
  const items = specs
    .flatMap(s => s.split(','))
    .map(s => s.trim())
    .filter(s => s !== '')
  if (items.length === 0) throw new InputError('--input', specs.join(','), INPUT_FORM)
  if (items.length > MAX_RESULT_FILES)
    throw new InputError('--input', `${items.length} files`, `at most ${MAX_RESULT_FILES} files`)
  const runs = new Map<string, number>()
  const seen = new Set<string>()
  return items.map(item => {
    const eq = item.indexOf('=')
    const environment = eq < 0 ? '' : item.slice(0, eq).trim()
    const file = eq < 0 ? '' : item.slice(eq + 1).trim()
    if (!ENV_NAME.test(environment) || file === '')
      throw new InputError('--input', item, `${INPUT_FORM}; ENV is letters, digits, _ . - (at most 64)`)
    const key = `${environment}\u0000${file}`
    if (seen.has(key))
      throw new InputError('--input', item, 'each file once per environment (a file is one run)')
    seen.add(key)
    const run = (runs.get(environment) ?? 0) + 1
    runs.set(environment, run)
    return { environment, file, run }
  })
}

/**
 * Read an analysis input in `format`: for `csv`, exactly one long-format file (as `analyze --input` always
 * took); otherwise ENV=FILE pairs, each file one run of that arm, aggregated as the CSV's rows would be.
 */
export async function readResults(
  format: string,
  specs: readonly string[],
  arms: readonly HyperfineArm[] = []
): Promise<ResultSet> {
  if (arms.length > 0) {
    if (checkFormat(format) !== 'hyperfine')
      throw new InputError('--arm', arms.map(a => a.environment).join(','), 'only with --format-in hyperfine')
    const files = specs
      .flatMap(s => s.split(','))
      .map(s => s.trim())
      .filter(s => s !== '')
    if (files.length === 0 || files.length > MAX_RESULT_FILES || files.some(f => /^[A-Za-z0-9_.-]+=/.test(f)))
      throw new InputError(
        '--input',
        specs.join(','),
        `hyperfine files with every arm's command (FILE, no ENV=: --arm names the arms), at most ${MAX_RESULT_FILES}`
      )
    const { rows, notes } = hyperfineArmRows(files, arms)
    const set = aggregated(rows, format)
    return { ...set, notes: [...notes, ...set.notes] }
  }
  if (checkFormat(format) === 'csv') {
    const [spec] = specs
    if (specs.length !== 1 || spec === undefined || spec.includes('='))
      throw new InputError(
        '--input',
        specs.join(','),
        'one long-format CSV file (the ENV=FILE form is for the JSON formats of --format-in)'
      )
    return readResultsCsv(spec)
  }
  const files = parseResultInputs(specs)
  const rows: RawRow[] = []
  for (const { environment, file, run } of files)
    for (const row of readResultFile(format, file)) rows.push({ ...row, environment, run })
  return aggregated(rows, format)
}

function aggregated(rows: RawRow[], format: string): ResultSet {
  try {
    const agg = aggregateRows(rows)
    // A result file says nothing of which run of one arm ran beside which of the other: its runs are numbered
    // by the order of --input, so pairing them would let that order change the numbers (issue 51). Two samples.
    const series = agg.series().map(s => ({ ...s, unblocked: true }))
    const notes =
      series.length > 0
        ? [
            `${format} files record no time a run ran beside the other arm's, so the arms are compared as two ` +
              'samples (unpaired: Welch, and the wider of the bootstrap and t intervals of the ratio), and the order ' +
              'of --input changes no number. Runs measured in blocks (gpu-overhead run, or --command) are paired.'
          ]
        : []
    return { environments: agg.environments, series, fingerprints: agg.fingerprints, notes }
  } catch (error) {
    if (error instanceof RowConflictError)
      throw new InputError(`--input (${format}) column '${error.column}'`, error.value, error.allowed)
    throw error
  }
}
