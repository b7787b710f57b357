/**
 * The one GitHub REST client. Octokit with the retry plugin (5xx and network errors, backoff) and the throttling
 * plugin (primary and secondary rate limits, Retry-After honoured up to a bound); the runner's proxy settings
 * (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, through @actions/http-client's proxy dispatcher); a timeout on every
 * request; the token sent to the API host only; and pagination bounded in pages and checked for loops.
 * Every failure is described by `describeApiError` as one line naming the call (method, path, status).
 */
import { HttpClient } from '@actions/http-client'
import { Octokit } from '@octokit/core'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import Bottleneck from 'bottleneck/light.js'
import { RequestError } from '@octokit/request-error'
import { fetch as undiciFetch } from 'undici'
import { PageGuard, PagingError } from '../util/paging.js'

export const DEFAULT_API_URL = 'https://api.github.com'
const USER_AGENT = 'gpu-overhead-action'
const API_VERSION = '2022-11-28'

/** Items per page; the page cap and loop detection live in util/paging.ts (one bound for every listing). */
export const PER_PAGE = 100

export const REQUEST_TIMEOUT_MS = 30_000
/** Retries of a 5xx or network error (backoff base × n², n = 1, 2, 3). */
const MAX_RETRIES = 3
/** Rate-limit waits: a few retries, never longer than a minute each (the job must not hang on a quota). */
const MAX_RATE_LIMIT_RETRIES = 2
const MAX_RATE_LIMIT_WAIT_S = 60
const BACKOFF_BASE_MS = 1000
/**
 * The plugin's own list (its default) plus 409: a conflict is an answer (the caller's compare-and-swap reads and
 * merges again, baseline-branch.ts), never a reason to send the same write again.
 */
const DO_NOT_RETRY = [400, 401, 403, 404, 409, 410, 422, 451]

/**
 * What one process may spend waiting on the API, every call, retry and rate-limit wait together: a host that
 * never answers costs this once, not a timeout per call (fetch baseline, comment, Check run, save). Past it,
 * every call fails at once with one line.
 */
export const API_BUDGET_MS = 180_000
let apiSpentMs = 0
let apiBudgetMs = API_BUDGET_MS

/** For tests: a new budget (and nothing spent yet). */
export function resetApiBudget(ms = API_BUDGET_MS): void {
  apiBudgetMs = ms
  apiSpentMs = 0
}

export class ApiBudgetError extends Error {
  constructor(call: string) {
    super(
      `${call} not sent: the GitHub API took ${Math.round(apiBudgetMs / 1000)} s of this step already (every call together); the API host is not answering`
    )
    this.name = 'ApiBudgetError'
  }
}

/**
 * The waits a client adds on purpose, for a test against a fake API: the retry backoff base, and the spacing of
 * writes, which the throttling plugin otherwise keeps at GitHub's advice (1 s between writes, 3 s between writes
 * that notify) for the whole process. Unset in production; tests shorten both with `setApiPacing`, so they wait
 * milliseconds where a real client waits seconds, through the same retry and throttling code.
 */
export interface ApiPacing {
  backoffBaseMs?: number
  writeSpacingMs?: number
}
let pacing: ApiPacing = {}

/** For tests: the pacing of every client created after this (entry points create their own). */
export function setApiPacing(next: ApiPacing): void {
  pacing = { ...next }
}

export interface GitHubApiOptions {
  token: string
  /** Defaults to GITHUB_API_URL, then https://api.github.com (GHES sets GITHUB_API_URL). */
  baseUrl?: string
  timeoutMs?: number
  /** Base of the retry and rate-limit waits; tests shorten it. */
  backoffBaseMs?: number
  /** Least time between two writes (3× that between writes that notify); tests shorten it. */
  writeSpacingMs?: number
  /** Where retries and rate-limit waits are reported (a warning: they make the job slower). */
  log?: (message: string) => void
  env?: NodeJS.ProcessEnv
}

const ApiOctokit = Octokit.plugin(retry, throttling)
export type GitHubApi = InstanceType<typeof ApiOctokit>

interface RequestShape {
  method?: string
  url?: string
  baseUrl?: string
}

/** `GET /repos/o/r/issues/1/comments` for messages: the method and the path, never the host or query. */
export function callName(options: RequestShape): string {
  let path = options.url ?? ''
  try {
    path = new URL(path, options.baseUrl ?? DEFAULT_API_URL).pathname
  } catch {
    // a template such as /repos/{owner}/{repo}: shown as written
  }
  return `${options.method ?? 'GET'} ${path}`
}

/** The innermost message of an error chain (fetch says only "fetch failed"; its cause says why). */
function rootCause(error: unknown): string {
  let message = ''
  // Duck-typed, not instanceof: errors from another realm (undici, test sandboxes) carry causes too.
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const m = (e as { message?: unknown }).message
    if (typeof m === 'string' && m) message = m
    e = (e as { cause?: unknown }).cause
  }
  return message
}

/** One line for a failed call: what was called, what came back, and the network cause when there was no answer. */
export function describeApiError(error: unknown): string {
  if (error instanceof RequestError) {
    const call = callName(error.request)
    const apiMessage = (error.response?.data as { message?: unknown } | undefined)?.message
    if (!error.response) return `${call} failed: ${rootCause(error)}`
    return `${call} returned ${error.status}${typeof apiMessage === 'string' && apiMessage ? ` (${apiMessage})` : ''}`
  }
  if (error instanceof PagingError) return error.message
  const cause = rootCause(error)
  const message = error instanceof Error ? error.message : String(error)
  return cause && cause !== message ? `${message}: ${cause}` : message
}

/**
 * fetch through the runner's proxy for this API host (decided once: every request goes to that host). A 5xx is
 * logged here, once per attempt, because the retry plugin retries it before any error hook sees it.
 */
function proxiedFetch(
  baseUrl: string,
  timeoutMs: number,
  log: (message: string) => void
): typeof globalThis.fetch {
  // @actions/http-client reads https_proxy/HTTPS_PROXY, http_proxy/HTTP_PROXY and no_proxy/NO_PROXY.
  const dispatcher = new HttpClient(USER_AGENT).getAgentDispatcher(baseUrl)
  // No attempt outlives what is left of the step's API budget either.
  const timed = (signal: AbortSignal | null | undefined): AbortSignal => {
    const limit = AbortSignal.timeout(Math.max(1, Math.min(timeoutMs, apiBudgetMs - apiSpentMs)))
    return signal ? AbortSignal.any([signal, limit]) : limit
  }
  return (async (url: string, init: Parameters<typeof undiciFetch>[1] = {}) => {
    const res = await undiciFetch(url, {
      ...init,
      signal: timed(init.signal),
      ...(dispatcher ? { dispatcher } : {})
    })
    if (res.status >= 500) log(`${callName({ method: init.method, url })} returned ${res.status}`)
    return res
  }) as unknown as typeof globalThis.fetch
}

export function createGitHubApi(opts: GitHubApiOptions): GitHubApi {
  const env = opts.env ?? process.env
  const baseUrl = (opts.baseUrl ?? env.GITHUB_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '')
  const origin = new URL(baseUrl).origin
  const log = opts.log ?? ((): void => undefined)
  const baseMs = opts.backoffBaseMs ?? pacing.backoffBaseMs ?? BACKOFF_BASE_MS
  const spacingMs = opts.writeSpacingMs ?? pacing.writeSpacingMs
  // Unset: the plugin's own process-wide write queues. Set: this client's own, spaced as the plugin's are.
  const writeQueues =
    spacingMs === undefined
      ? {}
      : {
          write: new Bottleneck.Group({ maxConcurrent: 1, minTime: spacingMs }),
          notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: 3 * spacingMs })
        }
  const onLimit =
    (kind: string) =>
    (retryAfterS: number, options: RequestShape, _octokit: unknown, retryCount: number): boolean => {
      const wait = retryCount < MAX_RATE_LIMIT_RETRIES && retryAfterS <= MAX_RATE_LIMIT_WAIT_S
      log(
        `${callName(options)} hit the ${kind} rate limit; ${wait ? `retrying in ${retryAfterS} s` : 'giving up'}`
      )
      return wait
    }
  const api = new ApiOctokit({
    auth: opts.token,
    baseUrl,
    userAgent: USER_AGENT,
    request: { fetch: proxiedFetch(baseUrl, opts.timeoutMs ?? REQUEST_TIMEOUT_MS, log) },
    retry: { retries: MAX_RETRIES, retryAfterBaseValue: baseMs, doNotRetry: DO_NOT_RETRY },
    throttle: {
      retryAfterBaseValue: baseMs,
      ...writeQueues,
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary')
    },
    log: { debug: () => undefined, info: () => undefined, warn: log, error: log }
  })
  // Outermost (registered after the plugins): one call's retries and waits count, and a call never outlives the budget.
  api.hook.wrap('request', async (request, options) => {
    const call = callName(options)
    const left = apiBudgetMs - apiSpentMs
    if (left <= 0) throw new ApiBudgetError(call)
    const t0 = Date.now()
    let timer: NodeJS.Timeout | undefined
    try {
      return await Promise.race([
        request(options),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new ApiBudgetError(call)), left)
          timer.unref()
        })
      ])
    } finally {
      clearTimeout(timer)
      apiSpentMs += Date.now() - t0
    }
  })
  api.hook.before('request', options => {
    options.headers['x-github-api-version'] = API_VERSION
    // Never send the token to another host, whatever a Link header or a redirect says.
    if (/^https?:\/\//i.test(options.url) && new URL(options.url).origin !== origin)
      throw new Error(`${options.method} ${options.url}: refusing to send the token outside ${origin}`)
  })
  return api
}

const NEXT_LINK = /<([^<>]+)>;\s*rel="next"/

/**
 * GET every page of a list endpoint (`route` as Octokit writes it, e.g.
 * `GET /repos/{owner}/{repo}/issues/{issue_number}/comments`), following `Link: rel="next"`. Bounded by
 * util/paging's PageGuard (page cap, loop detection): a PagingError names the listing. Breaking out stops paging.
 */
export async function* paginate<T>(
  api: GitHubApi,
  route: string,
  params: Record<string, unknown>
): AsyncGenerator<T[]> {
  const guard = new PageGuard(route)
  let res = await api.request(route, { ...params, per_page: PER_PAGE })
  guard.visit(res.url)
  for (;;) {
    // A list endpoint answers a list: anything else (a proxy's page, an object) is named, never read as "none".
    if (!Array.isArray(res.data)) {
      const shown =
        typeof res.data === 'string' ? res.data.slice(0, 80) : JSON.stringify(res.data)?.slice(0, 80)
      throw new Error(`${route} answered without a list: ${shown ?? 'nothing'}`)
    }
    yield res.data as T[]
    const next = NEXT_LINK.exec(String(res.headers.link ?? ''))?.[1]
    if (!next) return
    guard.visit(next)
    res = await api.request({ method: 'GET', url: next })
  }
}

/** The HTTP status of a failed call, or null when no answer came (network, timeout, paging bound). */
export function apiStatus(error: unknown): number | null {
  return error instanceof RequestError && error.response ? error.status : null
}
