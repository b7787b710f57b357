/** A small GitHub REST client on native fetch: one place for auth, base URL, timeouts and paging. */

export interface ApiResponse<T> {
  status: number
  data: T
  headers: Headers
}

/** A non-2xx answer, with what GitHub said. */
export class GitHubApiError extends Error {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly apiMessage: string
  ) {
    super(`${method} ${path} returned ${status}${apiMessage ? ` (${apiMessage})` : ''}`)
    this.name = 'GitHubApiError'
  }
}

export interface ClientOptions {
  token: string
  /** Defaults to GITHUB_API_URL, then https://api.github.com (GHES sets GITHUB_API_URL). */
  baseUrl?: string
  timeoutMs?: number
  userAgent?: string
}

const NEXT_LINK = /<([^>]+)>;\s*rel="next"/

export class GitHubClient {
  private constructor(
    private readonly token: string,
    private readonly baseUrl: URL,
    private readonly timeoutMs: number,
    private readonly userAgent: string
  ) {}

  static create(opts: ClientOptions): GitHubClient {
    const base = opts.baseUrl ?? process.env.GITHUB_API_URL ?? 'https://api.github.com'
    return new GitHubClient(
      opts.token,
      new URL(base.endsWith('/') ? base : `${base}/`),
      opts.timeoutMs ?? 30_000,
      opts.userAgent ?? 'gpu-overhead-action'
    )
  }

  /** Resolve an API path (`/repos/...`) or an absolute URL from a Link header against the base. */
  private resolve(pathOrUrl: string): URL {
    if (/^https?:\/\//.test(pathOrUrl)) {
      const url = new URL(pathOrUrl)
      // Never send the token to another host, whatever a Link header says.
      if (url.origin !== this.baseUrl.origin)
        throw new Error(`refusing to follow ${url.origin}: not the API host`)
      return url
    }
    return new URL(pathOrUrl.replace(/^\//, ''), this.baseUrl)
  }

  async request<T>(method: string, pathOrUrl: string, body?: unknown): Promise<ApiResponse<T>> {
    const url = this.resolve(pathOrUrl)
    const res = await fetch(url, {
      method,
      headers: {
        Accept: 'application/vnd.github+json',
        Authorization: `Bearer ${this.token}`,
        'X-GitHub-Api-Version': '2022-11-28',
        'User-Agent': this.userAgent,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' })
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs)
    })
    const text = await res.text()
    let data: unknown
    try {
      data = text ? JSON.parse(text) : null
    } catch {
      data = text
    }
    if (!res.ok) {
      const message =
        data && typeof data === 'object' && 'message' in data && typeof data.message === 'string'
          ? data.message
          : ''
      throw new GitHubApiError(res.status, method, url.pathname, message)
    }
    return { status: res.status, data: data as T, headers: res.headers }
  }

  /** GET every page of a list endpoint, following `Link: rel="next"`; breaking out of the loop stops paging. */
  async *paginate<T>(path: string, perPage = 100): AsyncGenerator<T[]> {
    let next: string | null = `${path}${path.includes('?') ? '&' : '?'}per_page=${perPage}`
    while (next) {
      const res: ApiResponse<T[]> = await this.request<T[]>('GET', next)
      yield Array.isArray(res.data) ? res.data : []
      next = NEXT_LINK.exec(res.headers.get('link') ?? '')?.[1] ?? null
    }
  }
}
