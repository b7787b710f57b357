/**
 * Bounds for every loop over remote pages (GitHub list endpoints): a page cap and loop detection on the
 * URLs followed, so a `Link: rel="next"` that points back, or a list that never ends, stops with a named
 * error instead of running forever. Any paging client (fetch or Octokit) feeds each page URL to a guard.
 */

/** Pages followed at most per listing (100 items each: 10,000 comments is far beyond a real PR). */
export const MAX_PAGES = 100

export class PagingError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PagingError'
  }
}

export class PageGuard {
  private readonly seen = new Set<string>()

  constructor(
    private readonly what: string,
    private readonly maxPages = MAX_PAGES
  ) {}

  /** Call before fetching each page; throws when the URL was seen before or the cap is reached. */
  visit(url: string): void {
    const key = normalise(url)
    if (this.seen.has(key))
      throw new PagingError(`${this.what}: the next-page link points back to a page already read; stopped`)
    if (this.seen.size >= this.maxPages)
      throw new PagingError(`${this.what}: more than ${this.maxPages} pages; stopped`)
    this.seen.add(key)
  }

  get pages(): number {
    return this.seen.size
  }
}

/** Same page, however the query is ordered. */
function normalise(url: string): string {
  try {
    const u = new URL(url, 'http://relative.invalid/')
    u.searchParams.sort()
    return u.toString()
  } catch {
    return url
  }
}
