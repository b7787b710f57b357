/**
 * Gated metrics whose measured region includes the start of the process: a user command read by its wall time
 * (`wall_s`, spawn to exit: execute/command-results.ts wallTimeSample) times the interpreter's start-up and, in a
 * container arm, the container's launch (create, namespaces, mounts, the entrypoint) in every process. Such a
 * metric is not steady state: the report gives it a section of its own, says "start-up included" wherever it
 * names it, and names the launch as what it contains, so a REGRESSION of a short command reads as what it is.
 *
 * Still gated (the decision, issue 51): a command that sends no samples and names no result format has no other
 * measure, and the user chose to time it whole (README, route 3); not gating it would leave such a check with
 * nothing gated. For a long command the launch is a small share and the gate is meaningful; for a short one the
 * report says, in the same section, that the launch is the likely cause and how to time the work alone.
 */
import type { CheckSummary, Comparison } from '../types/index.js'
import { code, fmtNum } from './format.js'

/** Whether the comparison times a whole process (start-up and any container launch included). */
export function includesStartup(c: Pick<Comparison, 'metric' | 'params'>): boolean {
  if (c.metric !== 'wall_s') return false
  try {
    const p = JSON.parse(c.params ?? '{}') as Record<string, unknown>
    return typeof p.command === 'string'
  } catch {
    return false
  }
}

/** ` (whole process, start-up included)` after a metric's name, or nothing. */
export function startupWords(c: Pick<Comparison, 'metric' | 'params'>): string {
  return includesStartup(c) ? ' (whole process, start-up included)' : ''
}

function ms(seconds: number): string {
  const v = seconds * 1000
  return `${v >= 0 ? '+' : '−'}${fmtNum(Math.abs(v))} ms`
}

/**
 * What a whole-process comparison contains, in words: the per-process difference, the container launch where
 * one was measured in this check (launch_s of a workload that reports its phases), and how to time the work alone.
 */
export function startupCause(summary: CheckSummary, c: Comparison): string {
  const diff = c.mean_candidate - c.mean_baseline
  const launches = (summary.analysis?.comparisons ?? []).filter(
    x => x.metric === 'launch_s' && x.candidate_env === c.candidate_env && x.baseline_env === c.baseline_env
  )
  const launch = launches[0]
  const measured =
    launch === undefined
      ? ''
      : `; the container's launch alone, measured by ${code(launch.workload)} in this check, took ${ms(launch.mean_candidate - launch.mean_baseline)} per process`
  const share =
    Number.isFinite(c.mean_baseline) && c.mean_baseline > 0
      ? ` of a ${fmtNum(c.mean_baseline)} s process`
      : ''
  return (
    `${code(`${c.workload} ${c.metric}`)} is timed from spawn to exit, so each ${code(c.candidate_env)} process ` +
    `also pays its start-up${/container/.test(c.candidate_env) ? ' and the container launch' : ''} ` +
    `(${ms(diff)} per process here${share}${measured}). ` +
    'That is paid once per process, not per unit of work: to gate the work alone, send samples from the command ' +
    '(docs/protocol.md) or name the result file its tool writes.'
  )
}
