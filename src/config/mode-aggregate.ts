/** `aggregate`: the result folders to merge and how to judge them, from the action's inputs or the CLI's flags. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { appendAll } from '../util/arrays.js'
import { given, integer, list } from './parse.js'
import { workspacePath } from './paths.js'
import { outputFormat, stringFlag, type ActionSource, type ModeSource } from './reader.js'
import { alphaOf, failOnRegressionOf, maxOverheadOf, onInconclusiveOf, type GateLimits } from './modes.js'

/** `aggregate`, from either surface: what to merge, where the report goes, and how to judge it. */
export interface AggregateConfig extends GateLimits {
  /** Result folders, each holding summary.json and results.jsonl. */
  dirs: string[]
  /** Folders given that held no result folder at all, to warn about. */
  skipped: string[]
  out: string
  format: 'md' | 'json'
  seed: number
}

/** The CLI's folder when --out names none (the action's is the `out` input). */
export const CLI_AGGREGATE_OUT = 'gpu-overhead-aggregate'

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
 * `aggregate`, the action's mode and the CLI's command alike. The action's folders are inside the workspace:
 * each entry is a result folder, or a folder whose direct subfolders are result folders (where
 * download-artifact puts one folder per matrix row); a subfolder without summary.json (a leg that stopped
 * before writing it) is left out and reported. The CLI's are the folders as given (the user's own shell picks
 * them). The limits, the seed and fail-on-regression are read the same way on both.
 */
export function parseAggregate(src: ModeSource): AggregateConfig {
  const { read, label } = src
  const found =
    src.surface === 'action'
      ? actionFolders(src)
      : { dirs: src.args, skipped: [], out: stringFlag(src.opts.out) ?? CLI_AGGREGATE_OUT }
  return {
    ...found,
    format: src.surface === 'cli' ? outputFormat(src.opts, 'md') : 'md',
    maxOverheadPct: maxOverheadOf(read, label),
    alpha: alphaOf(read, label),
    seed: integer(label(Inputs.Seed), read.get(Inputs.Seed), 0, 2 ** 31 - 1),
    failOnRegression: failOnRegressionOf(read, label),
    onInconclusive: onInconclusiveOf(read, label)
  }
}

/** aggregate-dirs (at least one result folder among them) and out, inside the workspace. */
function actionFolders({ read, workspace }: ActionSource): Pick<AggregateConfig, 'dirs' | 'skipped' | 'out'> {
  const raw = read.get(Inputs.AggregateDirs)
  if (!given(raw.trim())) throw new InputError(Inputs.AggregateDirs, raw, ALLOWED)
  const { dirs, skipped } = resultFolders(raw, workspace)
  if (dirs.length === 0)
    throw new InputError(Inputs.AggregateDirs, raw, `${ALLOWED}; none holds summary.json`)
  return { dirs, skipped, out: workspacePath(Inputs.Out, read.get(Inputs.Out), workspace) }
}
