/**
 * Which way is better for a metric. Never guessed from the metric's name: a throughput silently
 * treated as a time would flip every verdict.
 */
import type { Direction } from '../../types/index.js'
import { InputError } from '../../util/errors.js'
import { knownMetric } from '../../results/index.js'
import type { ArmSeries } from '../../results/index.js'

/** Time units: a duration is lower-is-better, the one direction a unit states by itself. */
const TIME_UNITS = new Set(['ns', 'us', 'µs', 'ms', 's', 'sec', 'seconds', 'min'])

/** How to declare a direction, for the error that refuses an undeclared one. */
export const DECLARE_DIRECTION =
  'a declared direction: a \'better\' column (lower|higher) in the CSV, or "better" on each workload sample; ' +
  'only time units (ms, s, us, ns) imply lower'

/**
 * The one unit both arms' values are in. A ratio of milliseconds to seconds is not an overhead (−99.9%, an
 * "improvement"), so arms that declare different units are refused, naming both; an undeclared side takes
 * the other's.
 */
export function commonUnit(
  base: Pick<ArmSeries, 'workload' | 'metric' | 'unit' | 'environment'>,
  cand: Pick<ArmSeries, 'unit' | 'environment'>
): string {
  const a = base.unit.trim()
  const b = cand.unit.trim()
  if (a !== '' && b !== '' && a !== b)
    throw new InputError(
      `unit (${base.workload}/${base.metric})`,
      `${a} in ${base.environment} and ${b} in ${cand.environment}`,
      'one unit for both arms (convert one arm before comparing)'
    )
  return b || a
}

/**
 * Which way is better for a metric: as declared (`better` on the samples or the CSV), else lower for a
 * time unit. Never guessed from the metric's name: anything else is refused with a named error, so a
 * throughput is never silently treated as a time.
 */
export function metricDirection(
  series: Pick<ArmSeries, 'workload' | 'metric' | 'unit' | 'better'>,
  other?: Pick<ArmSeries, 'better'>
): { direction: Direction; source: 'declared' | 'unit' } {
  const declared = series.better ?? other?.better
  if (other?.better !== undefined && series.better !== undefined && other.better !== series.better)
    throw new InputError(
      `better (${series.workload}/${series.metric})`,
      `${other.better} and ${series.better}`,
      'one direction for both arms'
    )
  if (declared !== undefined) return { direction: declared, source: 'declared' }
  const known = knownMetric(series.workload, series.metric)
  if (known !== undefined) return { direction: known.better, source: 'declared' }
  if (TIME_UNITS.has(series.unit.trim().toLowerCase())) return { direction: 'lower', source: 'unit' }
  throw new InputError(
    `better (${series.workload}/${series.metric}, unit '${series.unit}')`,
    '',
    DECLARE_DIRECTION
  )
}
