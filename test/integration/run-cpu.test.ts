/**
 * The real pipeline on the CPU: native vs a local container image on the real Docker engine
 * (`docker import`ed, nothing pulled, --network none), through the built CLI like a user runs it.
 */
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { readResults } from '../../src/results/store.js'
import type { CheckSummary, RunRecord } from '../../src/types/index.js'
import { CLI, cpuRunArgs, runCli as cli } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

let image = ''

function readRuns(out: string): RunRecord[] {
  return fs
    .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as RunRecord)
}

beforeAll(async () => {
  image = await ensurePythonImage()
}, 300_000)

describe('gpu-overhead run --device cpu (native vs container, real Docker)', () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'run-cpu-'))

  it('measures both arms, interleaved, and writes every result file', () => {
    const r = cli(
      cpuRunArgs({
        image,
        workloads: 'matmul,io',
        runs: 4,
        maxRuns: 4,
        out: 'out',
        // A small matmul: what is asserted is the files, counts, order and fingerprints, not the size.
        extra: ['--checkpoint-mb', '16', '--matmul-size', '128']
      }),
      ws
    )
    const out = path.join(ws, 'out')
    expect(r.stderr).toContain('[1/')
    expect([0, 1]).toContain(r.code)
    for (const f of ['results.jsonl', 'samples.csv', 'runs.jsonl', 'report.md', 'summary.json'])
      expect(fs.existsSync(path.join(out, f))).toBe(true)

    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
    expect(summary.complete).toBe(true)
    expect(summary.config.device).toBe('cpu')
    expect(summary.not_measured.map(n => n.what).join()).toMatch(/GPU/)
    const gated = summary.analysis?.comparisons.filter(c => c.scope === 'steady') ?? []
    // io's MB/s are informational by default (io gates by its mount rule); matmul's kernel time gates.
    expect([...new Set(gated.map(c => c.workload))]).toEqual(['matmul'])
    const info = summary.analysis?.comparisons.filter(c => c.scope === 'info') ?? []
    expect(info.map(c => c.workload)).toContain('io')
    for (const c of gated) {
      expect(c.n_baseline).toBe(4)
      expect(c.n_candidate).toBe(4)
      expect(Number.isFinite(c.overhead_pct)).toBe(true)
    }
    // Start-up is split and reported, never gated.
    const startup = summary.analysis?.comparisons.filter(c => c.scope === 'startup').map(c => c.metric) ?? []
    expect(startup).toEqual(expect.arrayContaining(['launch_s', 'imports_s', 'process_wall_s']))

    // Interleaved A B B A after the warm-ups, per workload.
    const runs = readRuns(out).filter(x => x.workload === 'matmul' && !x.warmup)
    expect(runs.map(x => x.environment)).toEqual([
      'native',
      'container',
      'container',
      'native',
      'native',
      'container',
      'container',
      'native'
    ])
    // Every record carries the fingerprint; the container's has the image digest.
    const recs = readResults(path.join(out, 'results.jsonl'))
    const c = recs.find(x => x.environment === 'container')
    expect(c?.fingerprint.image_digest).toMatch(/^sha256:[a-f0-9]{64}$/)
    expect(c?.fingerprint.runtime).toBe('docker')
    expect(recs.find(x => x.environment === 'native')?.fingerprint.image).toBeNull()
    const header = fs.readFileSync(path.join(out, 'samples.csv'), 'utf8').split('\n')[0]
    expect(header).toMatch(/^workload,environment,run,iteration,metric,value,unit/)
    const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
    expect(report).toMatch(/matmul/)
    // No container of this check is left behind.
    const ps = spawnSync(
      'docker',
      ['ps', '-aq', '--filter', `label=gpu-overhead-action.check=${summary.check_id}`],
      { encoding: 'utf8' }
    )
    expect(ps.stdout.trim()).toBe('')
  })

  it('takes turns: the llm’s native and container processes of a block measure request by request, A B B A', () => {
    const r = cli(cpuRunArgs({ image, workloads: 'llm', runs: 3, maxRuns: 3, out: 'turns' }), ws)
    const out = path.join(ws, 'turns')
    // Any other exit says why in the failure (a loaded runner once gave exit 2 here with nothing to read).
    if (r.code !== 0 && r.code !== 1)
      throw new Error(`exit ${r.code}:\n${`${r.stdout}\n${r.stderr}`.slice(-4000)}`)
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
    expect(summary.complete).toBe(true)
    const tpot = readResults(path.join(out, 'results.jsonl')).filter(x => x.metric === 'tpot_ms')
    expect(tpot.length).toBe(2 * 3 * 6)
    expect(tpot.every(x => x.interleave === 'turns' && x.params['interleave'] === 'turns')).toBe(true)
    for (const run of [1, 2, 3]) {
      // In the order they were measured, the arms alternate in pairs (the container stdin reaches it: -i).
      const arms = tpot
        .filter(x => x.run === run)
        .sort((a, b) => a.time.localeCompare(b.time))
        .map(x => x.environment)
      const first = arms[0]!
      const second = first === 'native' ? 'container' : 'native'
      expect(arms).toEqual([
        first,
        second,
        second,
        first,
        first,
        second,
        second,
        first,
        first,
        second,
        second,
        first
      ])
    }
    // Both processes of a block lived at once.
    const runs = readRuns(out).filter(x => x.workload === 'llm' && !x.warmup && x.run === 1)
    expect(Math.max(...runs.map(x => x.start_ms))).toBeLessThan(Math.min(...runs.map(x => x.end_ms)))
    expect(fs.readFileSync(path.join(out, 'samples.csv'), 'utf8').split('\n')[0]).toMatch(/interleave/)
  })

  it('keeps every sample measured before a cancel (SIGTERM) and reports the check incomplete', async () => {
    const out = path.join(ws, 'cancelled')
    const child = spawn(
      'node',
      [CLI, ...cpuRunArgs({ image, runs: 40, out: 'cancelled', extra: ['--matmul-size', '128'] })],
      {
        cwd: ws,
        stdio: ['ignore', 'pipe', 'pipe']
      }
    )
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    // Wait until a few measured runs are on disk, then cancel like the Actions runner does.
    await new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if ((stderr.match(/run \d+: ok/g) ?? []).length >= 3) {
          clearInterval(t)
          child.kill('SIGTERM')
          resolve()
        }
      }, 100)
      setTimeout(() => reject(new Error(`no progress: ${stderr}`)), 120_000)
    })
    const code = await new Promise<number | null>(resolve => child.on('close', c => resolve(c)))
    expect(code).not.toBe(0)
    const before = readResults(path.join(out, 'results.jsonl')).filter(r => r.scope === 'steady')
    expect(before.length).toBeGreaterThan(0)
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
    expect(summary.complete).toBe(false)
    expect(summary.incomplete_reason).toMatch(/cancelled/)
    expect(fs.readFileSync(path.join(out, 'report.md'), 'utf8')).toMatch(/INCOMPLETE/)
    const ps = spawnSync(
      'docker',
      ['ps', '-aq', '--filter', `label=gpu-overhead-action.check=${summary.check_id}`],
      { encoding: 'utf8' }
    )
    expect(ps.stdout.trim()).toBe('')
  })
})

describe('CLI surface', () => {
  it('--help lists every command and --version prints the version', () => {
    const help = cli(['--help'], os.tmpdir())
    expect(help.code).toBe(0)
    for (const c of ['run', 'analyze', 'gate', 'io-check']) expect(help.stdout).toContain(c)
    expect(cli(['--version'], os.tmpdir()).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
  })
  it('bad input exits 2 with one line naming the input', () => {
    const r = cli(['run', '--runs', 'abc'], os.tmpdir())
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/'runs'.*"abc"/)
    expect(cli(['run', '--bogus'], os.tmpdir()).code).toBe(2)
    expect(cli(['nope'], os.tmpdir()).code).toBe(2)
  })
})
