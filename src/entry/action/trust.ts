/**
 * Self-hosted GPU runners must not run code from fork pull requests unless the workflow opts in:
 * the runner is a shared, valuable machine and the PR's code runs on it.
 */
import * as fs from 'node:fs'
import { Inputs } from '../../types/inputs.js'

export interface TrustDecision {
  /** Set when the check must not run: the one-line reason. */
  refuse: string | null
  warnings: string[]
}

interface PullRequestEvent {
  pull_request?: {
    head?: { repo?: { full_name?: string; fork?: boolean } | null }
    base?: { repo?: { full_name?: string } }
  }
}

export function checkEventTrust(env: NodeJS.ProcessEnv, allowForkPrs: boolean): TrustDecision {
  const warnings: string[] = []
  const eventName = env.GITHUB_EVENT_NAME ?? ''
  if (eventName === 'pull_request_target')
    warnings.push(
      'pull_request_target runs with a write token and secrets: never check out and run the PR head on a self-hosted GPU runner from this event.'
    )
  if (eventName !== 'pull_request' && eventName !== 'pull_request_target') return { refuse: null, warnings }
  let event: PullRequestEvent = {}
  try {
    if (env.GITHUB_EVENT_PATH)
      event = JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as PullRequestEvent
  } catch {
    return {
      refuse:
        'cannot read the pull request event payload (GITHUB_EVENT_PATH), so cannot tell whether it comes from a fork; refusing.',
      warnings
    }
  }
  const head = event.pull_request?.head?.repo
  const baseName = event.pull_request?.base?.repo?.full_name
  // A deleted head repository (null) is treated as a fork: its origin can no longer be checked.
  const fork =
    head === null ||
    head === undefined ||
    head.fork === true ||
    (baseName !== undefined && head.full_name !== baseName)
  if (!fork) return { refuse: null, warnings }
  if (allowForkPrs) {
    warnings.push(
      `running a fork pull request (${head?.full_name ?? 'deleted repository'}) on this runner because ${Inputs.AllowForkPrs} is true.`
    )
    return { refuse: null, warnings }
  }
  return {
    refuse: `refusing to run a fork pull request (${head?.full_name ?? 'deleted repository'}) on a self-hosted GPU runner: its code would run on this machine. Set ${Inputs.AllowForkPrs}: true only if you accept that (e.g. with required approval for outside contributors).`,
    warnings
  }
}
