/** Issue bookkeeping of the trend against a local stand-in for the issues API (in-process, fast). */
import { analyzeTrend } from '../../src/analyze/index.js'
import {
  listTracked,
  markerOf,
  markerText,
  parseMarker,
  sameChange,
  syncTrendIssues,
  TREND_LABEL
} from '../../src/report/index.js'
import { createGitHubApi, setApiPacing } from '../../src/tools/github.js'
import { startFakeIssues, type FakeIssues } from '../helpers/fake-issues.js'
import { buildHistory, nightDigest } from '../helpers/trend-history.js'

// The fake API has no quota: the client's retry backoff and write spacing in milliseconds, not seconds.
beforeAll(() => setApiPacing({ backoffBaseMs: 1, writeSpacingMs: 1 }))

const REPO = { owner: 'org', repo: 'bench' }
let fake: FakeIssues
beforeEach(async () => {
  fake = await startFakeIssues('org/bench', { perPage: 3 })
})
afterEach(() => fake.close())
const api = () => createGitHubApi({ token: 'test-token', baseUrl: fake.url, backoffBaseMs: 1 })

const stepped = (from: number) =>
  buildHistory({
    nights: 50,
    level: n => (n < from ? 41 : 43.05),
    digest: n => nightDigest(n < from ? 1 : 2),
    seed: `s${from}`
  })

describe('trend issue markers', () => {
  it('round-trips and refuses junk', () => {
    const m = { v: 1 as const, series: 'abc123abc123', metric: 'kernel_ms', at: 'night-030', up: true }
    expect(parseMarker(`text\n${markerText(m)}\nmore`)).toEqual(m)
    expect(
      parseMarker('<!-- gpu-overhead-trend {"v":2,"series":"a","metric":"m","at":"x","up":true} -->')
    ).toBeNull()
    expect(parseMarker('<!-- gpu-overhead-trend {not json} -->')).toBeNull()
    expect(parseMarker(null)).toBeNull()
    const odd = { ...m, metric: 'a-->b<c>' }
    expect(markerText(odd)).not.toMatch(/a-->b/)
    expect(parseMarker(`${markerText(odd)} tail -->`)).toEqual(odd)
    expect(parseMarker(`<!-- gpu-overhead-trend {"v":1,${'"x":1,'.repeat(200)}} -->`)).toBeNull()
  })

  it('matches the same change when it moved by up to 2 checks, in the same direction only', () => {
    const s = analyzeTrend(stepped(25).history!).series.find(x => x.environment === 'container')!
    const c = s.changes[0]!
    const m = markerOf(s, c)
    expect(sameChange(m, s, c)).toBe(true)
    expect(sameChange({ ...m, at: s.points[c.index + 2]!.check_id }, s, c)).toBe(true)
    expect(sameChange({ ...m, at: s.points[c.index - 3]!.check_id }, s, c)).toBe(false)
    expect(sameChange({ ...m, up: false }, s, c)).toBe(false)
    expect(sameChange({ ...m, metric: 'tok_s' }, s, c)).toBe(false)
    expect(sameChange({ ...m, at: 'gone-from-history' }, s, c)).toBe(false)
  })
})

describe('syncTrendIssues', () => {
  it('reads only labelled issues with a marker, never pull requests, across pages', async () => {
    const s = analyzeTrend(stepped(25).history!).series.find(x => x.environment === 'container')!
    const marker = markerText(markerOf(s, s.changes[0]!))
    const add = (over: Partial<FakeIssues['issues'][number]>) =>
      fake.issues.push({
        number: fake.issues.length + 1,
        title: 't',
        body: marker,
        state: 'open',
        state_reason: null,
        labels: [TREND_LABEL],
        comments: [],
        ...over
      })
    add({ labels: [] }) // a marker pasted into an unlabelled issue
    add({ pull_request: { url: 'x' } })
    add({ body: 'no marker' })
    add({ user: 'mallory' }) // anyone can open a labelled issue carrying the marker
    for (let i = 0; i < 5; i++) add({ state: 'closed', body: 'old' })
    expect(await listTracked(api(), REPO)).toEqual([])
    const r = await syncTrendIssues(api(), REPO, analyzeTrend(stepped(25).history!))
    expect(r.opened).toHaveLength(1)
    expect(fake.issues.at(-1)!.labels).toEqual([TREND_LABEL])
    expect(await listTracked(api(), REPO)).toHaveLength(1)
  })

  it('does not reopen or duplicate a change whose issue a person closed', async () => {
    const report = analyzeTrend(stepped(25).history!)
    await syncTrendIssues(api(), REPO, report)
    fake.issues[0]!.state = 'closed'
    const r = await syncTrendIssues(api(), REPO, report)
    expect(r).toMatchObject({ opened: [], closed: [], tracked: 1 })
    expect(fake.issues).toHaveLength(1)
  })

  it('opens no issue for a change already reverted, nor for an improvement', async () => {
    const reverted = buildHistory({ nights: 60, level: n => (n >= 20 && n < 40 ? 43.05 : 41), seed: 'r' })
    const faster = buildHistory({ nights: 40, level: n => (n < 20 ? 41 : 38), seed: 'f' })
    for (const file of [reverted, faster]) {
      const r = await syncTrendIssues(api(), REPO, analyzeTrend(file.history!))
      expect(r.opened).toEqual([])
    }
    expect(fake.issues).toEqual([])
  })
})
