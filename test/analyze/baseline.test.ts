import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ArmSeries } from '../../src/results/run-values/index.js'
import type { CurrentResults } from '../../src/analyze/baseline/index.js'
import {
  BASELINE_SCHEMA,
  DEFAULT_BASELINE_PATH,
  JsonFileBaselineStore,
  baselineKey,
  compareWithBaseline,
  paramsHash
} from '../../src/analyze/baseline/index.js'
import { noise, nonFiniteNumbers, series } from './helpers.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpu-overhead-baseline-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fp = {
  gpu_name: 'H200',
  gpu_uuid: 'GPU-1',
  driver: '580.1',
  image_digest: 'sha256:aa',
  gpu_access: 'devices'
}
const settings = { maxOverheadPct: 2, alpha: 0.05 }

function current(
  checkId: string,
  values: number[],
  facts: Record<string, string | null> = fp
): CurrentResults {
  const s: ArmSeries[] = [
    series('container', 'kernel_ms', values),
    series(
      'container',
      'launch_s',
      values.map(v => v / 40),
      { unit: 's', scope: 'startup' }
    )
  ]
  return {
    check_id: checkId,
    time: `2026-01-0${checkId.length % 9}T00:00:00Z`,
    series: s,
    fingerprints: { container: facts }
  }
}

test('default location and a stable key from fingerprint + workload config', () => {
  expect(DEFAULT_BASELINE_PATH).toBe('.github/gpu-overhead/baseline.json')
  const k = baselineKey('container', fp, 'llm', '{"batch":8}')
  expect(k).toBe(
    `env=container|gpu=H200|driver=580.1|image=sha256:aa|access=devices|device=-|workload=llm|params=${paramsHash('{"batch":8}')}`
  )
  expect(baselineKey('container', { ...fp }, 'llm', '{"batch":8}')).toBe(k)
  expect(paramsHash('')).toBe('none')
  expect(paramsHash('{"batch":8}')).toMatch(/^[0-9a-f]{12}$/)
})

test('missing file: no-baseline; append creates it atomically; compare then works', async () => {
  const path = join(dir, 'a', 'nested', 'baseline.json')
  const store = new JsonFileBaselineStore(path)
  expect((await store.load()).status).toBe('missing')
  const none = await store.compare(current('c1', noise(1, 6, 41, 0.02)), settings)
  expect(none).toMatchObject({ status: 'no-baseline', comparisons: [], saved: false })

  const saved = await store.append(current('c1', noise(1, 6, 41, 0.02)))
  expect(saved.saved).toBe(true)
  const json = JSON.parse(readFileSync(path, 'utf8')) as { schema: string; entries: Record<string, unknown> }
  expect(json.schema).toBe(BASELINE_SCHEMA)
  const entry = Object.values(json.entries)[0] as {
    checks: { metrics: Record<string, { values: number[] }> }[]
  }
  expect(entry.checks[0]!.metrics.kernel_ms!.values).toHaveLength(6)
  // No temp files or lock left behind.
  expect(readdirSync(join(dir, 'a', 'nested'))).toEqual(['baseline.json'])

  // One stored check: the day-to-day spread is unknown, so nothing is decided yet.
  const one = await store.compare(current('c2', noise(2, 6, 41, 0.02)), settings)
  const k1 = one.comparisons.find(c => c.metric === 'kernel_ms')!
  expect(k1.verdict).toBe('inconclusive')
  expect(k1.reason).toContain('day-to-day spread between checks is unknown')
  await store.append(current('c2', noise(2, 6, 41, 0.02)))

  const same = await store.compare(current('c4', noise(4, 6, 41, 0.02)), settings)
  expect(same.status).toBe('compared')
  const k = same.comparisons.find(c => c.metric === 'kernel_ms')!
  expect(k.baseline_env).toBe('container@baseline')
  expect(k.candidate_env).toBe('container')
  expect(k.history).toMatchObject({ checks: 2, runs: 12, df: 1 })
  expect(k.verdict).toBe('equivalent')
  expect(same.comparisons.find(c => c.metric === 'launch_s')!.scope).toBe('startup')
  expect(nonFiniteNumbers(same)).toEqual([])

  const slower = await store.compare(current('c3', noise(3, 6, 41 * 1.1, 0.02)), settings)
  expect(slower.comparisons.find(c => c.metric === 'kernel_ms')!.verdict).toBe('regression')
})

test('keeps only the last N checks; re-saving a check replaces it', async () => {
  const store = new JsonFileBaselineStore(join(dir, 'keep.json'))
  for (let i = 0; i < 7; i++) await store.append(current(`k${i}`, noise(i, 3, 41, 0.02)))
  await store.append(current('k6', noise(99, 3, 41, 0.02)))
  const loaded = await store.load()
  const entry = Object.values(loaded.data!.entries)[0]!
  expect(entry.checks.map(c => c.check_id)).toEqual(['k2', 'k3', 'k4', 'k5', 'k6'])
  await store.append(current('k7', noise(7, 3, 41, 0.02)), { keep: 2 })
  expect(Object.values((await store.load()).data!.entries)[0]!.checks.map(c => c.check_id)).toEqual([
    'k6',
    'k7'
  ])
})

test('a changed driver or image digest makes the stored comparison incomparable, naming the change', async () => {
  const store = new JsonFileBaselineStore(join(dir, 'changed.json'))
  await store.append(current('old', noise(1, 6, 41, 0.02)))
  const r = await store.compare(
    current('new', noise(2, 6, 41, 0.02), { ...fp, image_digest: 'sha256:bb' }),
    settings
  )
  expect(r.status).toBe('compared')
  const k = r.comparisons.find(c => c.metric === 'kernel_ms')!
  expect(k.verdict).toBe('incomparable')
  expect(k.incomparable_fields).toEqual(['image_digest: sha256:aa vs sha256:bb'])
  const uuid = await store.compare(
    current('new', noise(2, 6, 41, 0.02), { ...fp, gpu_uuid: 'GPU-7' }),
    settings
  )
  expect(uuid.comparisons[0]!.verdict).toBe('incomparable')
  const other = await store.compare(
    { ...current('x', [1, 2, 3]), series: [series('native', 'kernel_ms', [1, 2, 3], { workload: 'io' })] },
    settings
  )
  expect(other.status).toBe('no-match')
})

describe('corrupt or foreign files are reported and never overwritten silently', () => {
  test.each([
    ['not JSON', '{"schema": "gpu-overhead/baseline@1", '],
    ['foreign schema', JSON.stringify({ schema: 'someone-else@3', entries: {} })],
    [
      'invalid entries',
      JSON.stringify({ schema: BASELINE_SCHEMA, updated_at: 'x', entries: { k: { key: 'k' } } })
    ]
  ])('%s', async (_what, text) => {
    const path = join(dir, `corrupt-${_what.replace(/ /g, '-')}.json`)
    writeFileSync(path, text)
    const store = new JsonFileBaselineStore(path)
    const loaded = await store.load()
    expect(loaded.status).toBe('corrupt')
    expect(loaded.message).toContain('was ignored')
    expect(loaded.message).toContain('will not be overwritten')
    const cmp = await store.compare(current('c', [41, 41.1, 41.2]), settings)
    expect(cmp.status).toBe('corrupt')
    const refused = await store.append(current('c', [41, 41.1, 41.2]))
    expect(refused.saved).toBe(false)
    expect(readFileSync(path, 'utf8')).toBe(text)
    // Only when asked: the old file is kept beside the new one.
    const forced = await store.append(current('c', [41, 41.1, 41.2]), { overwriteCorrupt: true })
    expect(forced.saved).toBe(true)
    expect((await store.load()).status).toBe('ok')
    const aside = readdirSync(dir).filter(f =>
      f.startsWith(`corrupt-${_what.replace(/ /g, '-')}.json.corrupt-`)
    )
    expect(aside).toHaveLength(1)
    expect(readFileSync(join(dir, aside[0]!), 'utf8')).toBe(text)
  })
})

test('two writers in separate processes lose no update (lock + atomic rename)', async () => {
  const path = join(dir, 'race', 'baseline.json')
  const worker = fileURLToPath(new URL('./workers/append-worker.ts', import.meta.url))
  const perWriter = 15
  const run = (writer: string): Promise<{ code: number | null; stderr: string }> =>
    new Promise(resolve => {
      const env = { ...process.env }
      delete env.NODE_OPTIONS
      const child = spawn(process.execPath, ['--import', 'tsx', worker, path, writer, String(perWriter)], {
        env,
        stdio: ['ignore', 'ignore', 'pipe']
      })
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      child.on('close', code => resolve({ code, stderr }))
    })
  const results = await Promise.all([run('A'), run('B')])
  for (const r of results) expect(r).toEqual({ code: 0, stderr: '' })
  const loaded = await new JsonFileBaselineStore(path).load()
  expect(loaded.status).toBe('ok')
  const entry = Object.values(loaded.data!.entries)[0]!
  const ids = entry.checks.map(c => c.check_id).sort()
  const expected = ['A', 'B'].flatMap(w => Array.from({ length: perWriter }, (_, i) => `${w}-${i}`)).sort()
  expect(ids).toEqual(expected)
  expect(existsSync(`${path}.lock`)).toBe(false)
  expect(readdirSync(join(dir, 'race'))).toEqual(['baseline.json'])
}, 120_000)

describe('compareWithBaseline (the pipeline entry)', () => {
  const records = (checkId: string, mean: number, seed: number) =>
    noise(seed, 6, mean, 0.02).map((value, i) => ({
      check_id: checkId,
      workload: 'matmul',
      environment: 'container',
      run: i + 1,
      metric: 'kernel_ms',
      value,
      unit: 'ms',
      scope: 'steady',
      fingerprint: fp
    }))
  const opts = { maxOverheadPct: 2, alpha: 0.05, seed: 7 }
  test('disabled without a path', async () => {
    expect((await compareWithBaseline(records('a', 41, 1), { ...opts, path: '', save: true })).status).toBe(
      'disabled'
    )
  })
  test('saves accepted runs; refuses to save a run that regressed against the baseline', async () => {
    const path = join(dir, 'pipeline.json')
    const first = await compareWithBaseline(records('c1', 41, 1), { ...opts, path, save: true })
    expect(first).toMatchObject({ status: 'no-baseline', saved: true })
    const second = await compareWithBaseline(records('c2', 41, 2), { ...opts, path, save: true })
    expect(second.status).toBe('compared')
    expect(second.saved).toBe(true)
    expect(second.comparisons[0]!.verdict).toBe('inconclusive') // one stored check: no day-to-day spread yet
    const third = await compareWithBaseline(records('c2b', 41, 4), { ...opts, path, save: true })
    expect(third.comparisons[0]!.verdict).toBe('equivalent')
    const slow = await compareWithBaseline(records('c3', 45, 3), { ...opts, path, save: true })
    expect(slow.comparisons[0]!.verdict).toBe('regression')
    expect(slow.saved).toBe(false)
    expect(slow.message).toContain('Not saved as a baseline')
    const ids = Object.values((await new JsonFileBaselineStore(path).load()).data!.entries)[0]!.checks.map(
      c => c.check_id
    )
    expect(ids).toEqual(['c1', 'c2', 'c2b'])
  })
})
