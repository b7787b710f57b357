/**
 * Failed arms explained: when an arm's processes fail (no GPU, a missing library, out of memory, an
 * entrypoint that never runs the command), the likely cause is named from what was recorded about that arm —
 * the image's declared ENV, the error event, the run's log — with the fix. Ranked above every other finding:
 * an arm that measured nothing is the first thing to fix.
 */
import type { ContainerRuntime, Finding, RunRecord } from '../../types/index.js'
import { namedSettings } from '../../util/setting-name.js'
import {
  CAUSES,
  OTHER,
  movedWorkdir,
  type Arm,
  type ArmFailure,
  type Cause,
  type CauseRule,
  type Text
} from './failure-causes.js'

/** Failed (not cancelled, not timed-out) processes, one per arm and error kind. */
export function armFailures(runs: readonly RunRecord[]): ArmFailure[] {
  const seen = new Set<string>()
  const out: ArmFailure[] = []
  for (const r of runs) {
    if (r.status !== 'failed' || !r.error) continue
    const key = `${r.environment}\u0000${r.error.split(':')[0]}`
    if (seen.has(key)) continue
    seen.add(key)
    const command = r.params['command']
    out.push({
      environment: r.environment,
      workload: r.workload,
      error: r.error,
      ...(typeof command === 'string' ? { command } : {})
    })
  }
  return out
}

/** What a rule's pattern caught in the error (`''` when it has no group), or null when it does not match. */
function caughtBy(pattern: CauseRule['pattern'], error: string): string | null {
  if (typeof pattern === 'function') return pattern(error) ? '' : null
  const m = pattern.exec(error)
  return m === null ? null : (m[1] ?? '')
}

/** The table's one reader: the first rule of CAUSES that applies to this arm and matches the error, else OTHER. */
function causeOf(
  f: ArmFailure,
  imageEnv: Readonly<Record<string, string>>,
  inContainer: boolean,
  runtime: ContainerRuntime | null
): Cause {
  const arm: Arm = inContainer ? 'container' : 'native'
  const cause = (rule: Omit<CauseRule, 'pattern'>, caught: string): Cause => {
    const fill = (t: Text): string =>
      namedSettings((typeof t === 'string' ? t : t[arm]).replace(/\$1/g, () => caught))
    return {
      key: fill(rule.key),
      label: rule.label,
      value: rule.value === 'caught' ? caught : f.error,
      meaning: fill(rule.meaning),
      fix: typeof rule.fix === 'function' ? namedSettings(rule.fix(runtime)) : fill(rule.fix)
    }
  }
  const moved = inContainer ? movedWorkdir(f) : null
  if (moved !== null) return moved
  for (const rule of CAUSES) {
    if (rule.containerOnly && !inContainer) continue
    const caught = caughtBy(rule.pattern, f.error)
    if (caught === null) continue
    return (inContainer ? rule.refine?.(imageEnv) : null) ?? cause(rule, caught)
  }
  return cause(OTHER, '')
}

/** One finding per distinct cause of an arm's failures. */
export function failureFindings(
  failures: readonly ArmFailure[],
  imageEnv: Readonly<Record<string, Readonly<Record<string, string>>>>,
  containerEnvs: readonly string[],
  baselineEnv: string,
  /** The container runtime, for its own fix; null when not known (both fixes are given). */
  runtime: ContainerRuntime | null = null
): Finding[] {
  const byKey = new Map<string, Finding>()
  for (const f of failures) {
    const inContainer = containerEnvs.includes(f.environment)
    const c = causeOf(f, imageEnv[f.environment] ?? {}, inContainer, runtime)
    const key = `${f.environment}:${c.key}`
    const seen = byKey.get(key)
    if (seen) {
      if (!seen.workloads.includes(f.workload)) seen.workloads.push(f.workload)
      continue
    }
    byKey.set(key, {
      kind: 'failure',
      key,
      label: `${f.environment} arm failed: ${c.label}`,
      // The columns are the arms: the failing one shows its error, the other what it did.
      baseline: f.environment === baselineEnv ? c.value.slice(0, 300) : 'ran',
      candidate: f.environment === baselineEnv ? 'ran' : c.value.slice(0, 300),
      impact: 3,
      domains: [],
      explains: [`${f.environment} ${f.workload}: ${f.error.slice(0, 200)}`],
      workloads: [f.workload],
      meaning: c.meaning,
      fix: c.fix,
      relevant: true,
      ...(c.fromImage ? { from_image_env: true } : {})
    })
  }
  return [...byKey.values()]
}
