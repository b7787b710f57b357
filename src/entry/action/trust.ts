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
import { Inputs } from '../../types/inputs.js'
import { readEventPayload } from '../../util/runner-files.js'

export interface TrustDecision {
  /** Set when the check must not run: the one-line reason. */
  refuse: string | null
  warnings: string[]
}

/** The inputs that opt in, named as the workflow writes them. */
const ALLOW_FORK_INPUT = Inputs.AllowForkPrs
const ALLOW_CONFIG_COMMANDS_INPUT = Inputs.AllowConfigCommands

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

/** How deep and how wide the payload is searched for pull requests and head repositories. */
const MAX_WALK_DEPTH = 6
const MAX_WALK_NODES = 20_000

/**
 * Every object in the payload (bounded) that names a head: pull-request shaped (`head.repo`, as in
 * `pull_request`, `check_run.pull_requests[]`, `check_suite.pull_requests[]`, `workflow_run.pull_requests[]`)
 * or carrying a `head_repository` (workflow_run, check_suite).
 */
function heads(payload: Json): { prs: Json[]; headRepos: Json[] } {
  const prs: Json[] = []
  const headRepos: Json[] = []
  let nodes = 0
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_WALK_DEPTH || ++nodes > MAX_WALK_NODES) return
    if (Array.isArray(v)) {
      for (const x of v.slice(0, 100)) walk(x, depth + 1)
      return
    }
    const o = obj(v)
    if (!o) return
    const head = obj(o.head)
    if (head && 'repo' in head) prs.push(o)
    if ('head_repository' in o) headRepos.push(o)
    for (const [k, x] of Object.entries(o)) if (k !== 'head' && k !== 'base') walk(x, depth + 1)
  }
  walk(payload, 0)
  return { prs, headRepos }
}

/** A repository's identity as the payload gives it: full name, else id, else API URL (check-run PRs lack full_name). */
function sameRepo(a: unknown, b: unknown): boolean | null {
  const x = obj(a)
  const y = obj(b)
  if (!x || !y) return null
  const name = (r: Json): string | null => fullName(r)?.toLowerCase() ?? null
  if (name(x) && name(y)) return name(x) === name(y)
  if (typeof x.id === 'number' && typeof y.id === 'number') return x.id === y.id
  if (typeof x.url === 'string' && typeof y.url === 'string')
    return x.url.toLowerCase() === y.url.toLowerCase()
  return null
}

/** Classifies a payload (pure). `eventName` only words the messages, except that a pull_request* event must carry one. */
export function originOf(eventName: string, payload: unknown): Origin {
  const p = obj(payload) ?? {}
  const found = heads(p)
  for (const pr of found.prs) {
    const number = typeof pr.number === 'number' ? ` #${pr.number}` : ''
    const what = `fork pull request${number}`
    const headRepo = obj(pr.head)?.repo
    // `repo: null` is a deleted head repository: its origin cannot be checked any more.
    if (!obj(headRepo)) return { kind: 'fork', head: 'deleted repository', what }
    const same = sameRepo(headRepo, obj(pr.base)?.repo ?? p.repository)
    if (same === null)
      return {
        kind: 'unknown',
        what: `${eventName} for pull request${number} (the payload does not name both its head and its base repository)`
      }
    if (!same)
      return {
        kind: 'fork',
        head: fullName(headRepo) ?? 'another repository',
        what
      }
  }
  for (const r of found.headRepos) {
    const event = typeof r.event === 'string' ? r.event : 'an event'
    const what = `${eventName || 'run'} of a fork (triggered by ${event})`
    const same = sameRepo(r.head_repository, p.repository ?? r.repository)
    if (same === null)
      return { kind: 'unknown', what: `${eventName || 'run'} whose payload names no head repository` }
    if (!same) return { kind: 'fork', head: fullName(r.head_repository) ?? 'another repository', what }
  }
  const issue = obj(p.issue)
  if (issue && issue.pull_request !== undefined && issue.pull_request !== null) {
    const number = typeof issue.number === 'number' ? ` #${issue.number}` : ''
    return {
      kind: 'unknown',
      what: `${eventName} on pull request${number} (the payload does not say which repository its head is in)`
    }
  }
  if (/^pull_request/.test(eventName) && found.prs.length === 0)
    return { kind: 'unknown', what: `${eventName} event whose payload names no pull request` }
  return { kind: 'same-repo' }
}

/** Events that always carry a pull request in their payload: an unreadable payload is refused for these. */
const PR_EVENT = /^(pull_request|workflow_run|issue_comment|check_run|check_suite)/

/**
 * `configCommands`: the commands the checked-out config file names (honoured under allow-config-commands). A
 * fork's are its own choice of program, so they run only where the fork's code may run at all (allow-fork-prs),
 * and then with a warning of their own.
 */
export function checkEventTrust(
  env: NodeJS.ProcessEnv,
  allowForkPrs: boolean,
  configCommands: readonly string[] = []
): TrustDecision {
  const warnings: string[] = []
  const eventName = env.GITHUB_EVENT_NAME ?? ''
  if (eventName === 'pull_request_target')
    warnings.push(
      'pull_request_target runs with a write token and secrets: never check out and run the PR head on a self-hosted GPU runner from this event.'
    )
  let payload: unknown = {}
  const read = readEventPayload(env)
  if (read.ok) payload = read.value
  else if (read.why === 'unreadable') {
    // An unreadable payload is refused where it could carry a pull request.
    if (PR_EVENT.test(eventName) && !allowForkPrs)
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
  const commands = configCommands.length
    ? `its config file's commands (${configCommands.slice(0, 8).join(', ')}${configCommands.length > 8 ? ', …' : ''})`
    : null
  if (allowForkPrs) {
    warnings.push(`running ${source} on this runner because ${ALLOW_FORK_INPUT} is true.`)
    if (commands)
      warnings.push(
        `${commands} run as the ${origin.kind === 'fork' ? 'fork' : 'outside code'} wrote them, because ${ALLOW_FORK_INPUT} and ${ALLOW_CONFIG_COMMANDS_INPUT} are true.`
      )
    return { refuse: null, warnings }
  }
  return {
    refuse:
      `refusing to run ${source} on a self-hosted GPU runner: ${origin.kind === 'fork' ? 'its' : 'possibly outside'} code${commands ? ` and ${commands}` : ''} would run on this machine. ` +
      `Set ${ALLOW_FORK_INPUT}: true only if you accept that (e.g. with required approval for outside contributors).`,
    warnings
  }
}
