/**
 * Does this run carry code from outside the repository? A self-hosted GPU runner must not run a fork's code
 * unless the workflow opts in (`allow-fork-prs: true`). Judged on the event payload by shape, not by a list
 * of event names, so a new event that names a pull request is covered too:
 * - a payload naming a pull request head (`pull_request.head.repo`: pull_request, pull_request_target,
 *   pull_request_review, pull_request_review_comment, pull_request_review_thread, …) is a fork when the head
 *   repository's full name differs from the base repository's; a deleted head repository counts as a fork;
 * - `workflow_run`: a fork when `workflow_run.head_repository` differs from the repository;
 * - a comment on a pull request (`issue_comment` with `issue.pull_request`) carries no head repository, so
 *   the run cannot be judged and is refused unless the workflow opts in;
 * - events whose payload names none of these (push, schedule, workflow_dispatch, merge_group, …) run
 *   code that is already in the repository.
 * "Fork" is never read from `head.repo.fork`: that flag is true for every PR inside a repository that is
 * itself a fork, and says nothing about where the head lives.
 */
import { READ_LIMITS, parseJsonQuiet, readUntrusted } from '../../util/safe-fs.js'

export interface TrustDecision {
  /** Set when the check must not run: the one-line reason. */
  refuse: string | null
  warnings: string[]
}

/** Name of the input that opts in (kept literal here: entry code, not config). */
export const ALLOW_FORK_INPUT = 'allow-fork-prs'

type Json = Record<string, unknown>

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null
}

function fullName(repo: unknown): string | null {
  const n = obj(repo)?.full_name
  return typeof n === 'string' && n !== '' ? n : null
}

/** What the payload says about where the code comes from. */
export type Origin =
  { kind: 'same-repo' } | { kind: 'fork'; head: string; what: string } | { kind: 'unknown'; what: string }

/** Classifies a payload (pure). `eventName` only words the messages. */
export function originOf(eventName: string, payload: unknown): Origin {
  const p = obj(payload) ?? {}
  const repository = fullName(p.repository)
  const pr = obj(p.pull_request)
  if (pr) {
    const head = obj(pr.head)
    const base = fullName(obj(pr.base)?.repo) ?? repository
    const number = typeof pr.number === 'number' ? ` #${pr.number}` : ''
    const what = `fork pull request${number}`
    // `repo: null` is a deleted head repository: its origin cannot be checked any more.
    const headName = head ? fullName(head.repo) : null
    if (!headName) return { kind: 'fork', head: 'deleted repository', what }
    if (!base)
      return {
        kind: 'unknown',
        what: `${eventName} for pull request${number} (the payload names no base repository)`
      }
    return headName.toLowerCase() === base.toLowerCase()
      ? { kind: 'same-repo' }
      : { kind: 'fork', head: headName, what }
  }
  const run = obj(p.workflow_run)
  if (run) {
    const headName = fullName(run.head_repository)
    const base = repository ?? fullName(run.repository)
    const what = `workflow_run of a fork (triggered by ${typeof run.event === 'string' ? run.event : 'an event'})`
    if (!headName || !base)
      return { kind: 'unknown', what: 'workflow_run whose payload names no head repository' }
    return headName.toLowerCase() === base.toLowerCase()
      ? { kind: 'same-repo' }
      : { kind: 'fork', head: headName, what }
  }
  const issue = obj(p.issue)
  if (issue && issue.pull_request !== undefined && issue.pull_request !== null) {
    const number = typeof issue.number === 'number' ? ` #${issue.number}` : ''
    return {
      kind: 'unknown',
      what: `${eventName} on pull request${number} (the payload does not say which repository its head is in)`
    }
  }
  return { kind: 'same-repo' }
}

/** Events that always carry a pull request in their payload: an unreadable payload is refused for these. */
const PR_EVENT = /^(pull_request|workflow_run|issue_comment)/

export function checkEventTrust(env: NodeJS.ProcessEnv, allowForkPrs: boolean): TrustDecision {
  const warnings: string[] = []
  const eventName = env.GITHUB_EVENT_NAME ?? ''
  if (eventName === 'pull_request_target')
    warnings.push(
      'pull_request_target runs with a write token and secrets: never check out and run the PR head on a self-hosted GPU runner from this event.'
    )
  let payload: unknown = {}
  if (env.GITHUB_EVENT_PATH) {
    let parsed: ReturnType<typeof parseJsonQuiet> = { ok: false, error: 'unreadable' }
    try {
      parsed = parseJsonQuiet(readUntrusted(env.GITHUB_EVENT_PATH, { maxBytes: READ_LIMITS.event }))
    } catch {
      // Judged below: an unreadable payload is refused where it could carry a pull request.
    }
    if (parsed.ok) payload = parsed.value
    else if (PR_EVENT.test(eventName) && !allowForkPrs)
      return {
        refuse: `cannot read the ${eventName} event payload (GITHUB_EVENT_PATH), so cannot tell whether it carries a fork's code; refusing.`,
        warnings
      }
  } else if (PR_EVENT.test(eventName) && !allowForkPrs)
    return {
      refuse: `GITHUB_EVENT_PATH is not set for a ${eventName} event, so cannot tell whether it carries a fork's code; refusing.`,
      warnings
    }
  const origin = originOf(eventName, payload)
  if (origin.kind === 'same-repo') return { refuse: null, warnings }
  const source =
    origin.kind === 'fork' ? `a ${origin.what} (${origin.head}, event ${eventName})` : origin.what
  if (allowForkPrs) {
    warnings.push(`running ${source} on this runner because ${ALLOW_FORK_INPUT} is true.`)
    return { refuse: null, warnings }
  }
  return {
    refuse:
      `refusing to run ${source} on a self-hosted GPU runner: ${origin.kind === 'fork' ? 'its' : 'possibly outside'} code would run on this machine. ` +
      `Set ${ALLOW_FORK_INPUT}: true only if you accept that (e.g. with required approval for outside contributors).`,
    warnings
  }
}
