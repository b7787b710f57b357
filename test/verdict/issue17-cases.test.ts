/**
 * Issue 17, case by case, rebuilt from its description as small CSVs (cases 2, 3, 6 and the rest),
 * through `analyze` (in-process, and as a real process for the piped-output case).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compareWithBaseline } from '../../src/analyze/index.js'
import { readResultsCsv } from '../../src/results/index.js'
import { analyzeCommand } from '../../src/commands/analyze.js'
import { buildProgram } from '../../src/entry/cli/index.js'
import { checkGate, checkVerdict, headlineOf, nothingMeasuredReason } from '../../src/gate/index.js'
import { SAMPLE_CSV_COLUMNS, sampleCsvRow } from '../../src/results/store.js'
import { resolveWorkloads } from '../../src/config/index.js'
import { workloadsGatedBySamples } from '../../src/execute/index.js'
import type { Analysis, Comparison, SampleRecord } from '../../src/types/index.js'
import { InputError } from '../../src/util/errors.js'
import { incomplete, pass } from '../__fixtures__/summaries/index.js'
import { noise } from '../analyze/helpers.js'
import { CLI } from '../helpers/cli.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'issue17-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const file = (name: string, lines: string[]): string => {
  const p = join(dir, name)
  writeFileSync(p, lines.join('\n') + '\n')
  return p
}
const base = { format: 'json' as const, maxOverheadPct: 2, alpha: 0.05 }

/** `workload,environment,run,metric,value[,unit][,better]` rows of per-run values. */
function csv(
  name: string,
  rows: { w: string; env: string; metric: string; values: number[]; unit?: string; better?: string }[],
  withBetter = true
): string {
  const head = `workload,environment,run,metric,value,unit${withBetter ? ',better' : ''}`
  const lines = rows.flatMap(r =>
    r.values.map(
      (v, i) =>
        `${r.w},${r.env},${i + 1},${r.metric},${v},${r.unit ?? ''}${withBetter ? `,${r.better ?? ''}` : ''}`
    )
  )
  return file(name, [head, ...lines])
}

describe('case 1: nothing measured is never a pass', () => {
  test('no gated comparison → error verdict, exit 2 (CLI and action alike)', async () => {
    expect(nothingMeasuredReason({ comparisons: [] })).toMatch(/no gated metric was measured/)
    const analysis = { ...pass.analysis!, comparisons: [], verdict: 'inconclusive' as const }
    expect(checkVerdict(analysis, [], true)).toBe('error')
    // The action's step and `run` share checkGate: an error verdict fails with exit 2 even with
    // fail-on-regression off.
    expect(checkGate({ ...incomplete, preflight: [] }, false).exitCode).toBe(2)
    // Only informational metrics (the writable layer) measured: still nothing gated.
    const p = csv('info-only.csv', [
      {
        w: 'io',
        env: 'native',
        metric: 'scratch_write_mb_s',
        values: [1, 1.1, 1.2],
        unit: 'MB/s',
        better: 'higher'
      },
      {
        w: 'io',
        env: 'container',
        metric: 'scratch_write_mb_s',
        values: [1, 1.1, 1.3],
        unit: 'MB/s',
        better: 'higher'
      }
    ])
    writeFileSync(p, (await import('node:fs')).readFileSync(p, 'utf8').replace(/,higher$/gm, ',higher'))
    const info = file('info-scope.csv', [
      'workload,environment,run,metric,value,unit,better,scope',
      ...[1, 2, 3].flatMap(r => [
        `io,native,${r},copyup_ms,${10 + r},ms,lower,info`,
        `io,container,${r},copyup_ms,${20 + r},ms,lower,info`
      ])
    ])
    const r = await analyzeCommand({ ...base, input: info })
    expect(r.exitCode).toBe(2)
    expect(r.analysis.error).toMatch(/nothing measured/)
  })
  test('a workload of the check that emitted no gated metric makes the check an error', () => {
    const c = {
      workload: 'matmul',
      metric: 'kernel_ms',
      scope: 'steady',
      n_baseline: 5,
      n_candidate: 5
    } as Comparison
    expect(nothingMeasuredReason({ comparisons: [c] }, ['matmul', 'llm'])).toBe(
      'workload(s) llm emitted no gated metric'
    )
    expect(nothingMeasuredReason({ comparisons: [{ ...c, n_baseline: 1 }] })).toMatch(/2 runs in both arms/)
  })
  test('io gates by its mount rule: its informational MB/s need no gated sample, unless asked to gate', () => {
    expect(workloadsGatedBySamples(resolveWorkloads(['matmul', 'llm', 'io'], []), false)).toEqual([
      'matmul',
      'llm'
    ])
    expect(workloadsGatedBySamples(resolveWorkloads(['matmul', 'io'], []), true)).toEqual(['matmul', 'io'])
    const matmul = {
      workload: 'matmul',
      metric: 'kernel_ms',
      scope: 'steady',
      n_baseline: 3,
      n_candidate: 3
    } as Comparison
    const ioInfo = { ...matmul, workload: 'io', metric: 'data_read_mb_s', scope: 'info' } as Comparison
    const comparisons = [matmul, ioInfo]
    expect(
      nothingMeasuredReason(
        { comparisons },
        workloadsGatedBySamples(resolveWorkloads(['matmul', 'io'], []), false)
      )
    ).toBeNull()
    // Asked to gate io's MB/s, an io that emitted none is still an error.
    expect(
      nothingMeasuredReason(
        { comparisons },
        workloadsGatedBySamples(resolveWorkloads(['matmul', 'io'], []), true)
      )
    ).toBe('workload(s) io emitted no gated metric')
    // A check of io alone gates on its rule; a matmul check with nothing gated stays an error.
    const analysis = { comparisons: [ioInfo], verdict: 'inconclusive' } as unknown as Analysis
    expect(checkVerdict(analysis, [], true, [], false)).toBe('pass')
    expect(checkVerdict(analysis, [], true, ['matmul'], true)).toBe('error')
  })
})

describe('case 2: a throughput loss is a regression once its direction is declared', () => {
  const rows = [
    { w: 'mm', env: 'native', metric: 'gflop_s', values: [100, 100.2, 99.8, 100.1, 99.9] },
    { w: 'mm', env: 'container', metric: 'gflop_s', values: [90, 90.2, 89.8, 90.1, 89.9] }
  ]
  test('without a better column the metric is refused, naming it and how to declare a direction', async () => {
    const p = csv('gflops-undeclared.csv', rows, false)
    await expect(analyzeCommand({ ...base, input: p })).rejects.toThrow(InputError)
    await expect(analyzeCommand({ ...base, input: p })).rejects.toThrow(
      /better \(mm\/gflop_s.*'better' column \(lower\|higher\) in the CSV/
    )
  })
  test('better=higher: 100 → 90 is +11.1%, a regression, exit 1, shown with ↑', async () => {
    const p = csv(
      'gflops.csv',
      rows.map(r => ({ ...r, better: 'higher' }))
    )
    const r = await analyzeCommand({ ...base, input: p })
    const c = r.analysis.comparisons[0]!
    expect(c.direction).toBe('higher')
    expect(c.direction_source).toBe('declared')
    expect(c.overhead_pct).toBeCloseTo((100 / 90 - 1) * 100, 1)
    expect(c.verdict).toBe('regression')
    expect(r.exitCode).toBe(1)
    const md = await analyzeCommand({ ...base, format: 'md', input: p })
    expect(md.text).toMatch(/gflop_s ↑/)
  })
  test('a bad better value is refused with file:line', async () => {
    const p = file('bad-better.csv', ['workload,environment,run,metric,value,better', 'a,native,1,m,1,up'])
    await expect(analyzeCommand({ ...base, input: p })).rejects.toThrow(/bad-better\.csv:2 column 'better'/)
  })
})

describe('case 3: small samples with ties (timer resolution)', () => {
  test('two constant arms at n = 3 (1.0 vs 1.0300001): exact p = 0.10, warned, not a regression', async () => {
    const p = csv('constant.csv', [
      { w: 'k', env: 'native', metric: 't_ms', values: [1.0, 1.0, 1.0], unit: 'ms' },
      { w: 'k', env: 'container', metric: 't_ms', values: [1.0300001, 1.0300001, 1.0300001], unit: 'ms' }
    ])
    const r = await analyzeCommand({ ...base, input: p })
    const c = r.analysis.comparisons[0]!
    expect(c.mann_whitney).toMatchObject({ method: 'permutation', p: 0.1 })
    expect(c.verdict).not.toBe('regression')
    expect(c.warnings?.join(' ')).toMatch(/timer resolution/)
    expect(r.exitCode).toBe(0)
  })
})

describe('case 5: analyze --baseline round-trips the tool’s own baseline.json and samples.csv', () => {
  test('samples.csv carries params, better and device, so the baseline key matches', async () => {
    const fp = {
      host: 'h',
      device: 'gpu' as const,
      gpu_name: 'H200',
      gpu_uuid: 'GPU-1',
      driver: '580.1',
      cuda: '13.0',
      image: null,
      image_digest: null,
      runtime: null,
      runtime_version: null,
      gpu_access: 'devices' as const,
      mig_mode: null,
      persistence_mode: null,
      clocks: null
    }
    const records = (check: string, seed: number): SampleRecord[] =>
      ['native', 'container'].flatMap((environment, e) =>
        noise(seed + e, 5, 41, 0.02).map((value, i) => ({
          check_id: check,
          workload: 'llm',
          environment,
          run: i + 1,
          iteration: 1,
          metric: 'ttft_ms',
          value,
          unit: 'ms',
          better: 'lower' as const,
          scope: 'steady' as const,
          time: '2026-11-23T00:00:00Z',
          params: { batch_size: 8, prompt_len: 128 },
          fingerprint: { ...fp, image_digest: environment === 'container' ? 'sha256:aa' : null }
        }))
      )
    const baselinePath = join(dir, 'rt-baseline.json')
    for (const [i, check] of ['c1', 'c2', 'c3'].entries())
      await compareWithBaseline(records(check, 10 * i + 1), {
        path: baselinePath,
        save: true,
        maxOverheadPct: 2,
        alpha: 0.05
      })
    const samples = file('samples.csv', [
      SAMPLE_CSV_COLUMNS.join(','),
      ...records('now', 77).map(sampleCsvRow)
    ])
    const read = await readResultsCsv(samples)
    expect(read.series[0]!.params).toBe('{"batch_size":8,"prompt_len":128}')
    const r = await analyzeCommand({ ...base, input: samples, baselinePath })
    expect(r.analysis.baseline?.status).toBe('compared')
    expect(r.analysis.baseline!.comparisons.map(c => c.history?.checks)).toEqual([3, 3])
  })
})

describe('case 6: piped output is complete (stdout flushed before exit)', () => {
  // 160 workloads × 2 arms × 5 runs: a JSON answer of ~0.5 MB, far over a pipe or socket buffer.
  const lines = ['workload,environment,run,metric,value,unit']
  for (let w = 0; w < 160; w++)
    for (const env of ['native', 'container'])
      for (let run = 1; run <= 5; run++)
        lines.push(
          `w${w},${env},${run},t_ms,${40 + ((w * 7 + run * 3) % 5) / 10 + (env === 'container' ? 0.01 : 0)},ms`
        )
  // The built CLI, as the end-to-end tests run it (test/helpers/cli.ts): its own exit path flushes stdout.
  // (Through tsx each spawn compiled the CLI's sources first, ~5 s of the unit lane's CPU.)
  const args = (): string[] => [CLI, 'analyze', '--input', file('many.csv', lines), '--format', 'json']
  const env = (): NodeJS.ProcessEnv => {
    const e = { ...process.env }
    delete e.NODE_OPTIONS
    return e
  }
  // A consumer spawned by Node reads through a socket pair, where writes are asynchronous: process.exit()
  // right after the write delivered 0 bytes of 300 kB to a reader that started 1.5 s late.
  const slowReader = (): Promise<{ code: number | null; out: string }> =>
    new Promise(done => {
      const child = spawn(process.execPath, args(), { env: env() })
      let out = ''
      child.stdout.pause()
      setTimeout(() => {
        child.stdout.on('data', (d: Buffer) => (out += d.toString()))
        child.stdout.resume()
      }, 2000)
      child.on('close', code => done({ code, out }))
    })
  const runCli = (shell: string): Promise<{ code: number | null; out: string }> =>
    new Promise(done => {
      const cmd = [process.execPath, ...args()].map(a => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
      const child = spawn('sh', ['-c', `${cmd} | ${shell}`], { env: env() })
      let out = ''
      child.stdout.on('data', (d: Buffer) => (out += d.toString()))
      child.on('close', code => done({ code, out }))
    })
  test('to a slow reader: the whole JSON arrives and parses', async () => {
    const r = await slowReader()
    expect(r.out.length).toBeGreaterThan(65_536)
    const json = JSON.parse(r.out) as { comparisons: unknown[] }
    expect(json.comparisons).toHaveLength(160)
    expect(r.code).toBe(0)
  }, 120_000)
  test('to head -c: the reader closes early; no crash trace, output is the first bytes', async () => {
    const r = await runCli('head -c 100')
    expect(r.out).toHaveLength(100)
    expect(r.out.startsWith('{')).toBe(true)
    expect(r.code).toBe(0)
  }, 120_000)
})

describe('case 7: values and what the tables say', () => {
  test('negative and non-finite values are refused with file:line; hex is not a number', async () => {
    const neg = file('neg.csv', [
      'workload,environment,run,metric,value,unit',
      'a,native,1,t_ms,1,ms',
      'a,native,2,t_ms,-3,ms'
    ])
    await expect(analyzeCommand({ ...base, input: neg })).rejects.toThrow(
      /neg\.csv:3 column 'value'.*at least 0/
    )
    const hex = file('hex.csv', ['workload,environment,run,metric,value,unit', 'a,native,1,t_ms,0x10,ms'])
    await expect(analyzeCommand({ ...base, input: hex })).rejects.toThrow(/hex\.csv:2 column 'value'/)
    const inf = file('inf.csv', ['workload,environment,run,metric,value,unit', 'a,native,1,t_ms,Infinity,ms'])
    await expect(analyzeCommand({ ...base, input: inf })).rejects.toThrow(/inf\.csv:2/)
  })
  test('a zero baseline is shown one way: “–”', async () => {
    const p = csv('zero.csv', [
      { w: 'z', env: 'native', metric: 't_ms', values: [0, 0, 0], unit: 'ms' },
      { w: 'z', env: 'container', metric: 't_ms', values: [3, 3.1, 2.9], unit: 'ms' }
    ])
    const md = await analyzeCommand({ ...base, format: 'md', input: p })
    const row = md.text.split('\n').find(l => l.startsWith('| z '))!
    expect(row.split('|').map(s => s.trim())[7]).toBe('–')
    expect(md.text).not.toMatch(/3,005×|\+336278%/)
  })
  test('a significant improvement beyond the margin is an improvement', async () => {
    const p = csv('faster.csv', [
      { w: 'f', env: 'native', metric: 't_ms', values: [100, 100.3, 99.8, 100.1, 99.9], unit: 'ms' },
      { w: 'f', env: 'container', metric: 't_ms', values: [90, 90.3, 89.8, 90.1, 89.9], unit: 'ms' }
    ])
    const c = (await analyzeCommand({ ...base, input: p })).analysis.comparisons[0]!
    expect(c.verdict).toBe('improvement')
    expect(c.reason).not.toMatch(/inconclusive/)
  })
  test('the MDE advice never says “2 runs would detect” at 2 runs', async () => {
    const p = csv('two.csv', [
      { w: 'm', env: 'native', metric: 't_ms', values: [100, 101], unit: 'ms' },
      { w: 'm', env: 'container', metric: 't_ms', values: [101.5, 102.5], unit: 'ms' }
    ])
    const c = (await analyzeCommand({ ...base, input: p })).analysis.comparisons[0]!
    expect(c.verdict).toBe('inconclusive')
    expect(c.runs_needed === null || c.runs_needed > 2).toBe(true)
    expect(c.reason).not.toMatch(/\b2 runs per arm would detect/)
  })
  test('the table shows means (42.2 → 46.7 ms); the paired overhead beside them is their ratio, marked paired', async () => {
    const p = csv('means.csv', [
      { w: 'x', env: 'native', metric: 't_ms', values: [40, 41, 42, 43, 45], unit: 'ms' },
      { w: 'x', env: 'container', metric: 't_ms', values: [42, 43, 44, 45, 59.5], unit: 'ms' }
    ])
    const r = await analyzeCommand({ ...base, format: 'md', input: p })
    const c = r.analysis.comparisons[0]!
    // Runs 1–5 of both arms are blocks; the overhead is the ratio of the request means over every block
    // (issue 39), here the ratio of the two means the table shows, with Fieller's paired interval.
    expect(c.ci_method).toBe('paired')
    expect(c.overhead_pct).toBeCloseTo((233.5 / 211 - 1) * 100, 9)
    expect(r.text).toMatch(/\| +42\.2 \| +46\.7 \|/)
    expect(r.text).toMatch(/\+10\.66% \[[^\]]+\] paired/)
    expect(r.text).toMatch(/Rows marked paired: .*ratio of the request means over every block/)
  })
})

describe('case 8: overhead-pct is the verdict’s headline', () => {
  test('a passing check with an inconclusive metric headlines the worst decided one, not the inconclusive', () => {
    const mk = (metric: string, verdict: Comparison['verdict'], overhead_pct: number): Comparison =>
      ({ workload: 'w', metric, scope: 'steady', verdict, overhead_pct, p_adjusted: 0.5 }) as Comparison
    const list = [mk('kernel_ms', 'equivalent', 0.1), mk('data_read_mb_s', 'inconclusive', 14.3)]
    expect(headlineOf(list).overhead_pct).toBe(0.1)
    expect(headlineOf([...list, mk('ttft_ms', 'regression', 5)]).overhead_pct).toBe(5)
    expect(headlineOf([mk('a', 'inconclusive', 3)]).overhead_pct).toBeNull()
  })
})

describe('case 9: analyze environments a,b', () => {
  test('the CLI sets no default env names, so the command’s own fallback sees two environments', async () => {
    const analyze = buildProgram().commands.find(c => c.name() === 'analyze')!
    for (const flag of ['--baseline-env', '--candidate-env'])
      expect(analyze.options.find(o => o.long === flag)!.defaultValue).toBeUndefined()
    const p = csv('ab.csv', [
      { w: 'k', env: 'a', metric: 't_ms', values: [1, 1.01, 0.99], unit: 'ms' },
      { w: 'k', env: 'b', metric: 't_ms', values: [1, 1.02, 0.98], unit: 'ms' }
    ])
    const r = await analyzeCommand({ ...base, input: p })
    expect([r.analysis.baseline_env, r.analysis.candidate_env]).toEqual(['a', 'b'])
  })
})
