/** `aggregate`: the result folders to merge and how to judge them, from the action's inputs or the CLI's flags. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import type { OnInconclusive } from '../types/index.js'
import { appendAll } from '../util/arrays.js'
import { bool, given, integer, list } from './parse.js'
import { workspacePath } from './paths.js'
import { FLAG_LABEL, INPUT_LABEL, flagReader, sourcesReader, type ConfigSources } from './reader.js'
import { alphaOf, gateLimits, maxOverheadOf, onInconclusiveOf, type GateLimits } from './modes.js'

export interface AggregateConfig {
  /** Result folders, each holding summary.json and results.jsonl. */
  dirs: string[]
  /** Folders given that held no result folder at all, to warn about. */
  skipped: string[]
  out: string
  maxOverheadPct: number
  alpha: number
  seed: number
  failOnRegression: boolean
  onInconclusive: OnInconclusive
}

const ALLOWED = 'result folders (with summary.json), or folders holding them, inside the workspace'

/** Each entry is a result folder, or a folder whose direct subfolders are (one per matrix row). */
function resultFolders(raw: string, workspace: string): { dirs: string[]; skipped: string[] } {
  const dirs: string[] = []
  const skipped: string[] = []
  const isResult = (d: string): boolean => fs.existsSync(path.join(d, 'summary.json'))
  for (const entry of list(Inputs.AggregateDirs, raw)) {
    const dir = workspacePath(Inputs.AggregateDirs, entry, workspace)
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
      throw new InputError(Inputs.AggregateDirs, entry, `${ALLOWED}; it is not a folder`)
    if (isResult(dir)) {
      dirs.push(dir)
      continue
    }
    const subs = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter(e => e.isDirectory())
      .map(e => path.join(dir, e.name))
      .sort()
    appendAll(dirs, subs.filter(isResult))
    appendAll(
      skipped,
      subs.filter(d => !isResult(d))
    )
    if (!subs.some(isResult)) skipped.push(dir)
  }
  return { dirs, skipped }
}

/**
 * `mode: aggregate`: the folders to merge. Each entry is a result folder, or a folder whose direct
 * subfolders are result folders (where download-artifact puts one folder per matrix row); a subfolder
 * without summary.json (a leg that stopped before writing it) is left out and reported.
 */
export function loadAggregateConfig(sources: ConfigSources): AggregateConfig {
  const { workspace } = sources
  const read = sourcesReader(sources)
  const raw = read.get(Inputs.AggregateDirs)
  if (!given(raw.trim())) throw new InputError(Inputs.AggregateDirs, raw, ALLOWED)
  const { dirs, skipped } = resultFolders(raw, workspace)
  if (dirs.length === 0)
    throw new InputError(Inputs.AggregateDirs, raw, `${ALLOWED}; none holds summary.json`)
  return {
    dirs,
    skipped,
    out: workspacePath(Inputs.Out, read.get(Inputs.Out), workspace),
    maxOverheadPct: maxOverheadOf(read, INPUT_LABEL),
    alpha: alphaOf(read, INPUT_LABEL),
    seed: integer(Inputs.Seed, read.get(Inputs.Seed), 0, 2 ** 31 - 1),
    failOnRegression: bool(Inputs.FailOnRegression, read.get(Inputs.FailOnRegression)),
    onInconclusive: onInconclusiveOf(read, INPUT_LABEL)
  }
}

export interface AggregateFlags extends GateLimits {
  dirs: string[]
  out: string
  format: 'md' | 'json'
}

/** The CLI's folder when --out names none (the action's is the `out` input). */
export const CLI_AGGREGATE_OUT = 'gpu-overhead-aggregate'

/** `gpu-overhead aggregate DIR...`: the folders as given (the user's own shell picks them), the same limits. */
export function aggregateFlags(dirs: string[], opts: Record<string, unknown>): AggregateFlags {
  return {
    dirs,
    out: typeof opts.out === 'string' && opts.out !== '' ? opts.out : CLI_AGGREGATE_OUT,
    format: opts.format === 'json' ? 'json' : 'md',
    ...gateLimits(flagReader(opts), FLAG_LABEL)
  }
}
