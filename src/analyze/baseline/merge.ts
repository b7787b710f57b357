/**
 * Read-modify-write of a shared baseline file: one check's entries and history points, taken from the
 * file this run wrote, laid onto the file as it is stored now (another job may have added its check since
 * this run read it). Pure: the caller reads, merges and writes with a compare-and-swap on the stored version.
 */
import { parseJsonQuiet } from '../../util/safe-fs.js'
import { DEFAULT_HISTORY_KEEP } from '../history.js'
import { DEFAULT_KEEP_CHECKS, emptyFile, parseBaseline, type BaselineFile } from './format.js'

function parse(text: string, what: string): BaselineFile {
  const quiet = parseJsonQuiet(text)
  const parsed = quiet.ok ? parseBaseline(quiet.value) : { error: 'it is not valid JSON' }
  if ('error' in parsed) throw new Error(`${what} is not a baseline file (${parsed.error}); not overwritten`)
  return parsed.data
}

/**
 * `stored` (null: nothing stored yet) with check `checkId` of `local` added (replacing an earlier copy of
 * the same check), each entry and series trimmed to its `keep`. Throws when either is not a baseline file.
 */
export function mergeCheck(stored: string | null, local: string, checkId: string): string {
  const into = stored === null ? emptyFile() : parse(stored, 'the stored baseline')
  const from = parse(local, 'the baseline this run wrote')
  const keep = from.keep ?? into.keep ?? DEFAULT_KEEP_CHECKS
  for (const [key, entry] of Object.entries(from.entries)) {
    const checks = entry.checks.filter(c => c.check_id === checkId)
    if (checks.length === 0) continue
    const target = (into.entries[key] ??= { ...entry, checks: [] })
    target.fingerprint = entry.fingerprint
    target.checks = [...target.checks.filter(c => c.check_id !== checkId), ...checks]
      .sort((a, b) => a.time.localeCompare(b.time))
      .slice(-keep)
  }
  for (const [key, series] of Object.entries(from.history ?? {})) {
    const points = series.points.filter(p => p.check_id === checkId)
    if (points.length === 0) continue
    const history = (into.history ??= {})
    const target = (history[key] ??= { ...series, points: [] })
    target.points = [...target.points.filter(p => p.check_id !== checkId), ...points]
      .sort((a, b) => a.time.localeCompare(b.time))
      .slice(-DEFAULT_HISTORY_KEEP)
  }
  into.schema = from.schema
  into.keep = keep
  into.updated_at = new Date().toISOString()
  return JSON.stringify(into, null, 2) + '\n'
}
