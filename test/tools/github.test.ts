/** The GitHub client against a local fake API and a local proxy: retry, rate limits, proxy, bounded paging. */
import { MAX_PAGES } from '../../src/util/paging.js'
import {
  createGitHubApi,
  describeApiError,
  paginate,
  setApiPacing,
  type GitHubApi
} from '../../src/tools/github.js'
import { startFakeApi, startFakeProxy, type FakeApi } from '../helpers/fake-github.js'

const LIST = 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments'
const LIST_PATH = '/repos/o/r/issues/7/comments'
const params = { owner: 'o', repo: 'r', issue_number: 7 }

let api: FakeApi
const logs: string[] = []
const client = (baseUrl = api.url): GitHubApi =>
  createGitHubApi({ token: 'ghs_test', baseUrl, backoffBaseMs: 1, log: m => void logs.push(m), env: {} })

async function drain(gen: AsyncGenerator<unknown[]>): Promise<number> {
  let items = 0
  for await (const page of gen) items += page.length
  return items
}

beforeEach(async () => {
  logs.length = 0
  api = await startFakeApi()
})
afterEach(() => api.close())

describe('retry', () => {
  it('retries a 502 once and then succeeds; the log names the call', async () => {
    api.routes.set(`POST ${LIST_PATH}`, (_r, hit) =>
      hit === 1 ? { status: 502, raw: '<html>Bad Gateway</html>' } : { status: 201, body: { id: 1 } }
    )
    const res = await client().request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...params,
      body: 'hi'
    })
    expect(res.status).toBe(201)
    expect(api.requests.filter(r => r.method === 'POST')).toHaveLength(2)
    expect(logs.join('\n')).toContain(`POST ${LIST_PATH} returned 502`)
  })

  it('gives up after the retry budget and names the call and the status', async () => {
    api.routes.set(`GET ${LIST_PATH}`, { status: 503, body: { message: 'unavailable' } })
    const error = await client()
      .request(LIST, params)
      .catch((e: unknown) => e)
    expect(api.requests).toHaveLength(4) // first try + 3 retries
    expect(describeApiError(error)).toBe(`GET ${LIST_PATH} returned 503 (unavailable)`)
  })

  it('does not retry a 404 (a permission problem stays one request)', async () => {
    const error = await client()
      .request(LIST, params)
      .catch((e: unknown) => e)
    expect(api.requests).toHaveLength(1)
    expect(describeApiError(error)).toMatch(/^GET \/repos\/o\/r\/issues\/7\/comments returned 404/)
  })

  it('waits out a secondary rate limit (403 + Retry-After) and retries', async () => {
    api.routes.set(`GET ${LIST_PATH}`, (_r, hit) =>
      hit === 1
        ? {
            status: 403,
            body: { message: 'You have exceeded a secondary rate limit' },
            headers: { 'retry-after': '1' }
          }
        : { status: 200, body: [] }
    )
    const res = await client().request(LIST, params)
    expect(res.status).toBe(200)
    expect(api.requests).toHaveLength(2)
    expect(logs.join('\n')).toMatch(/secondary rate limit; retrying in 1 s/)
  })

  it('names the call and the network cause when nothing answers', async () => {
    const port = api.port
    await api.close()
    const error = await createGitHubApi({
      token: 't',
      baseUrl: `http://127.0.0.1:${port}`,
      backoffBaseMs: 1,
      env: {}
    })
      .request(LIST, params)
      .catch((e: unknown) => e)
    expect(describeApiError(error)).toMatch(/^GET \/repos\/o\/r\/issues\/7\/comments failed: .*ECONNREFUSED/)
    api = await startFakeApi() // afterEach closes it
  })
})

describe('write spacing', () => {
  // Times of the POSTs the fake API received, for three comments written back to back by one client.
  async function postTimes(c: GitHubApi): Promise<number[]> {
    const at: number[] = []
    api.routes.set(`POST ${LIST_PATH}`, () => {
      at.push(Date.now())
      return { status: 201, body: { id: at.length } }
    })
    for (let i = 0; i < 3; i++)
      await c.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...params, body: 'hi' })
    return at
  }

  it("keeps writes that notify 3 × writeSpacingMs apart (the throttling plugin's queues, shortened)", async () => {
    const at = await postTimes(
      createGitHubApi({ token: 't', baseUrl: api.url, backoffBaseMs: 1, writeSpacingMs: 100, env: {} })
    )
    expect(at).toHaveLength(3)
    // Bottleneck spaces the starts of the requests 3 × 100 ms apart; these are arrival times, and on a loaded
    // runner one arrival can lag its start (a gap of 141 ms was seen on a busy 2-core machine). Unspaced writes
    // arrive a few ms apart: each gap well over that, and the two together near their 600 ms.
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(100)
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(100)
    expect(at[2]! - at[0]!).toBeGreaterThanOrEqual(500)
  })

  it('setApiPacing sets the spacing of clients created after it', async () => {
    setApiPacing({ backoffBaseMs: 1, writeSpacingMs: 100 })
    try {
      const at = await postTimes(createGitHubApi({ token: 't', baseUrl: api.url, env: {} }))
      expect(at[2]! - at[0]!).toBeGreaterThanOrEqual(500)
    } finally {
      setApiPacing({})
    }
  })
})

describe('proxy', () => {
  const saved = { ...process.env }
  afterEach(() => {
    for (const k of ['HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) {
      if (saved[k] === undefined) delete process.env[k]
      else process.env[k] = saved[k]
    }
  })

  it('sends API calls through HTTP(S)_PROXY: the proxy on 127.0.0.1 sees the request', async () => {
    const proxy = await startFakeProxy(api.port)
    try {
      api.routes.set(`GET ${LIST_PATH}`, { status: 200, body: [{ id: 1 }] })
      process.env.HTTP_PROXY = proxy.url
      // A host that does not resolve: only the proxy can carry the request.
      const res = await client(`http://api.github.test:${api.port}`).request(LIST, params)
      expect(res.data).toEqual([{ id: 1 }])
      expect(proxy.connects).toEqual([`api.github.test:${api.port}`])
      expect(api.requests[0]?.headers.authorization).toBe('token ghs_test')
    } finally {
      await proxy.close()
    }
  })

  it('bypasses the proxy for NO_PROXY hosts', async () => {
    const proxy = await startFakeProxy(api.port)
    try {
      process.env.HTTP_PROXY = proxy.url
      process.env.NO_PROXY = 'example.test,api.github.test'
      const error = await client(`http://api.github.test:${api.port}`)
        .request(LIST, params)
        .catch((e: unknown) => e)
      expect(proxy.connects).toEqual([])
      expect(describeApiError(error)).toMatch(
        /^GET \/repos\/o\/r\/issues\/7\/comments failed: .*api\.github\.test/
      )
    } finally {
      await proxy.close()
    }
  })
})

describe('pagination', () => {
  const page = (
    n: number,
    next?: string
  ): { status: number; body: unknown; headers: Record<string, string> } => ({
    status: 200,
    body: [{ id: n }],
    headers: next ? { link: `<${next}>; rel="next"` } : {}
  })

  it('follows Link: rel="next" to the last page', async () => {
    api.routes.set(`GET ${LIST_PATH}`, (r, hit, base) =>
      hit < 3 ? page(hit, `${base}${LIST_PATH}?page=${hit + 1}`) : page(hit)
    )
    expect(await drain(paginate(client(), LIST, params))).toBe(3)
    expect(api.requests[0]?.headers['x-github-api-version']).toBe('2022-11-28')
  })

  it('stops when a next link points back to a page already read', async () => {
    api.routes.set(`GET ${LIST_PATH}`, (_r, _hit, base) => page(1, `${base}${LIST_PATH}?page=2`))
    // page 1 links to ?page=2, which (same route) links to ?page=2 again: a loop.
    await expect(drain(paginate(client(), LIST, params))).rejects.toThrow(
      /points back to a page already read/
    )
    expect(api.requests.length).toBe(2)
  })

  it(`stops after ${MAX_PAGES} pages of a list that never ends`, async () => {
    api.routes.set(`GET ${LIST_PATH}`, (_r, hit, base) => page(hit, `${base}${LIST_PATH}?page=${hit + 1}`))
    await expect(drain(paginate(client(), LIST, params))).rejects.toThrow(`more than ${MAX_PAGES} pages`)
    expect(api.requests.length).toBe(MAX_PAGES)
  })

  it('never sends the token to another host named by a Link header', async () => {
    const other = await startFakeApi({ [`GET ${LIST_PATH}`]: page(2) })
    try {
      api.routes.set(
        `GET ${LIST_PATH}`,
        page(1, `${other.url.replace('127.0.0.1', 'localhost')}${LIST_PATH}`)
      )
      await expect(drain(paginate(client(), LIST, params))).rejects.toThrow(
        /refusing to send the token outside/
      )
      expect(other.requests).toEqual([])
    } finally {
      await other.close()
    }
  })
})
