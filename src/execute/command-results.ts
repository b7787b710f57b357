/**
 * What a user command measured beyond the protocol channel: a tool's result file it wrote into `{out}`
 * (format hyperfine, pytest-benchmark, …) or, read by its wall time (format wall, or auto without samples),
 * the whole process, start-up and work unsplit (docs/protocol.md).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { FILE_COMMAND_FORMATS, type CommandFormat, type SampleRecord } from '../types/index.js'
import { EVENTS_FILE } from './run-folders.js'
import type { ProcessResult } from './process-types.js'
import type { SampleRow } from '../results/index.js'
import { first } from '../util/must.js'

/** A sample's fields that come from its run, not from what it measured. */
export type RunBase = Omit<SampleRecord, 'metric' | 'value' | 'unit' | 'scope' | 'iteration' | 'time'>

/**
 * One sample of a process: its base, then the sample's own fields (the same keys in the same order as a spread).
 * Object.assign, not `{ ...base, … }`: on Node 20 the spread with seven more fields took ~12 µs a record (V8
 * leaves its fast clone path), 7.5 of the 44.6 s that 4 × 150k samples cost; assign takes ~1 µs.
 */
export function sampleOf(
  base: RunBase,
  fields: Omit<SampleRecord, keyof RunBase> & Partial<SampleRecord>
): SampleRecord {
  return Object.assign({}, base, fields)
}

/** Reads a tool's result file into rows (results/ readResultFile); errors name the file and what was expected. */
export type ResultReader = (format: CommandFormat, file: string) => SampleRow[]

/** How one process of a command is read. */
export interface CommandResults {
  /** The samples its result file held (none for a warm-up, a failed process or another format). */
  samples: SampleRecord[]
  /** Why its results could not be read (the run failed for it); null when they could. */
  error: string | null
  /** Its results come from a result file. */
  fromFile: boolean
  /** The whole process is the measurement: format wall, or auto without protocol samples. */
  byWallTime: boolean
}

const NO_RESULTS: CommandResults = { samples: [], error: null, fromFile: false, byWallTime: false }

/** Result files a command may leave in its run's folder: exactly one JSON (or JSON Lines) file beside the channel. */
function resultFile(runDir: string): string {
  const names = fs
    .readdirSync(runDir, { withFileTypes: true })
    .filter(d => d.name !== EVENTS_FILE)
    .slice(0, 64)
  const files = names.filter(d => d.isFile() && /\.jsonl?$/.test(d.name))
  if (files.length !== 1)
    throw new Error(
      `expected one .json (or .jsonl) result file in {out}, found ${files.length === 0 ? 'none' : files.map(f => f.name).join(', ')} (write it with the tool's export option into {out})`
    )
  return path.join(runDir, first(files).name)
}

/**
 * A command's tool result file → samples of this run. One benchmark in the file names its metrics plainly
 * (`time`); several prefix them with the benchmark's name.
 */
function fileSamples(
  format: CommandFormat,
  runDir: string | null,
  base: RunBase,
  read: ResultReader | undefined,
  proc: ProcessResult
): SampleRecord[] {
  if (runDir === null || !read) throw new Error('no result reader for command results')
  const rows = read(format, resultFile(runDir))
  const several = new Set(rows.map(r => r.workload)).size > 1
  const time = new Date(proc.endEpochMs).toISOString()
  return rows.map((r, k): SampleRecord =>
    sampleOf(base, {
      // Custom JSON's entries are named benchmarks whose metric is just `value`: the name is the metric.
      metric:
        r.metric === 'value'
          ? r.workload.slice(0, 80)
          : several
            ? `${r.workload.slice(0, 80)}:${r.metric}`
            : r.metric,
      value: r.value,
      unit: r.unit,
      better: r.better,
      scope: r.scope ?? 'steady',
      iteration: (r.iteration ?? k) + 1,
      time
    })
  )
}

/**
 * Reads one finished process of a command (format null: a built-in, nothing to read). A result file is read
 * only after a clean exit (a warm-up's is checked, its samples dropped); a protocol command that sent no
 * sample is an error.
 */
export function readCommandResults(
  format: CommandFormat | null,
  proc: ProcessResult,
  runDir: string | null,
  base: RunBase,
  read: ResultReader | undefined,
  warmup: boolean
): CommandResults {
  if (format === null) return NO_RESULTS
  const fromFile = FILE_COMMAND_FORMATS.includes(format)
  let samples: SampleRecord[] = []
  let error: string | null = null
  if (fromFile && proc.exitCode === 0 && !proc.timedOut && !proc.cancelled) {
    try {
      const found = fileSamples(format, runDir, base, read, proc)
      if (!warmup) samples = found
    } catch (e) {
      error = `result file (${format}): ${e instanceof Error ? e.message : String(e)}`.slice(0, 600)
    }
  }
  const sent = proc.events.some(e => e.event === 'sample') || samples.length > 0
  if (format === 'protocol' && !sent && proc.exitCode === 0 && proc.badLines.length === 0)
    error = 'no sample events on the channel (command-formats: protocol); see docs/protocol.md'
  return { samples, error, fromFile, byWallTime: format === 'wall' || (format === 'auto' && !sent) }
}

/** The wall-time sample of a command read by its wall time: spawn to exit, start-up and work unsplit. */
export function wallTimeSample(base: RunBase, proc: ProcessResult): SampleRecord {
  return {
    ...base,
    metric: 'wall_s',
    value: (proc.endEpochMs - proc.spawnEpochMs) / 1000,
    unit: 's',
    better: 'lower',
    scope: 'steady',
    iteration: 1,
    time: new Date(proc.endEpochMs).toISOString()
  }
}
