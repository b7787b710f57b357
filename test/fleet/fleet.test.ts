/**
 * `gpu-overhead aggregate` end to end: two real checks (native vs a local container image on the real
 * Docker engine, --device cpu) from the built CLI, pooled into one group; then a copy of one check
 * doctored to another GPU/driver lands in a group of its own, with the reason.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { AggregateReport } from '../../src/fleet/types.js'
import { DEFAULTS } from '../../src/config/defaults.js'
import type { CheckSummary } from '../../src/types/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { WORKLOADS } from '../../src/types/basics.js'
import { cpuRunArgs, runCli, type CliResult } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'aggregate-fleet-'))
let image = ''

const cli = (args: string[]): CliResult => runCli(args, ws)

function runCheck(out: string, runs = 3, workloads?: string): void {
  // runs = max-runs: sequential stopping would otherwise run 3 to 16 per arm; the counts below need 3.
  const r = cli(
    cpuRunArgs({
      image,
      runs,
      maxRuns: runs,
      out,
      ...(workloads ? { workloads } : {}),
      extra: ['--warmup-runs', '0', '--matmul-size', '64', '--checkpoint-mb', '4']
    })
  )
  if (r.code === null || r.code > 1) throw new Error(`run ${out} failed (${r.code}): ${r.stderr}`)
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T
}

// TEST TRANSFORMATION, not a measurement: rewrites a copied check as if it had run on another GPU and
// driver (and gives it its own check id), to show that such a check is never pooled with the others.
const DOCTORED = { gpu_name: 'TEST-DOCTORED GPU (not a real measurement)', driver: '999.0.0-test' }
function doctorCopy(from: string, to: string): void {
  fs.mkdirSync(path.join(ws, to))
  const summary = readJson<CheckSummary>(path.join(ws, from, 'summary.json'))
  summary.check_id = `${summary.check_id}-doctored`
  for (const fp of Object.values(summary.fingerprints)) Object.assign(fp, DOCTORED)
  fs.writeFileSync(path.join(ws, to, 'summary.json'), JSON.stringify(summary))
  const lines = fs
    .readFileSync(path.join(ws, from, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => {
      const r = JSON.parse(l) as { check_id: string; fingerprint: Record<string, unknown> }
      r.check_id = summary.check_id
      Object.assign(r.fingerprint, DOCTORED)
      return JSON.stringify(r)
    })
  fs.writeFileSync(path.join(ws, to, 'results.jsonl'), `${lines.join('\n')}\n`)
}

/**
 * Every workload of a default check (matmul, llm, io: what `workloads: auto` runs without commands): each records
 * its own stack (io imports no NumPy).
 */
const DEFAULT_WORKLOADS =
  DEFAULTS[Inputs.Workloads] === 'auto' ? WORKLOADS.join(',') : DEFAULTS[Inputs.Workloads]

beforeAll(async () => {
  image = await ensurePythonImage()
  runCheck('A')
  runCheck('B')
  runCheck('D1', 2, DEFAULT_WORKLOADS)
  runCheck('D2', 2, DEFAULT_WORKLOADS)
}, 900_000)

describe('aggregate over the folders of default checks (matmul,llm,io)', () => {
  const stacksOf = (dir: string, arm: string): Set<string> =>
    new Set(
      fs
        .readFileSync(path.join(ws, dir, 'results.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(l => JSON.parse(l) as { environment: string; fingerprint: { stack: string } })
        .filter(r => r.environment === arm)
        .map(r => r.fingerprint.stack)
    )

  it("reads them as `run` wrote them: one group, every workload's runs pooled", () => {
    // The premise, checked: the records' stacks differ by workload, the summary holds one per arm.
    expect(stacksOf('D1', 'native').size).toBeGreaterThan(1)
    const r = cli(['aggregate', 'D1', 'D2', '--out', 'agg-default', '--max-overhead', '50%'])
    expect(r.stderr).not.toContain('disagree')
    const report = readJson<AggregateReport>(path.join(ws, 'agg-default', 'aggregate.json'))
    expect(r.code).toBe(report.verdict === 'regression' ? 1 : 0)
    expect(report.groups).toHaveLength(1)
    const workloads = new Set(report.groups[0]!.analysis!.comparisons.map(c => c.workload))
    expect([...workloads].sort()).toEqual(DEFAULT_WORKLOADS.split(',').sort())
    for (const c of report.groups[0]!.analysis!.comparisons.filter(x => x.scope === 'steady'))
      expect([c.n_baseline, c.n_candidate]).toEqual([4, 4])
  })

  it("still refuses a folder whose records carry another stack than its summary's", () => {
    fs.cpSync(path.join(ws, 'D1'), path.join(ws, 'D1-mixed'), { recursive: true })
    const file = path.join(ws, 'D1-mixed', 'results.jsonl')
    const [first, ...rest] = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
    const wrong = JSON.parse(first!) as { fingerprint: { stack: string } }
    wrong.fingerprint.stack = 'stack:0000000000000000'
    fs.writeFileSync(file, `${[JSON.stringify(wrong), ...rest].join('\n')}\n`)
    const r = cli(['aggregate', 'D1-mixed'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/"D1-mixed".*disagree on stack of arm/)
  })
})

describe('gpu-overhead aggregate (real checks)', () => {
  it('pools two checks of one fingerprint into one group: n per arm = 6, exit code follows the verdict', () => {
    // The CPU toy kernel (64²) is noisy, and on a loaded host the container's CPU matmul can be far slower
    // than native: this test is about pooling, so the verdict itself is not pinned, only its consistency.
    const r = cli(['aggregate', 'A', 'B', '--out', 'agg', '--max-overhead', '50%'])
    expect(r.stderr).toContain('aggregate.md')
    const report = readJson<AggregateReport>(path.join(ws, 'agg', 'aggregate.json'))
    expect(['pass', 'incomparable', 'regression', 'inconclusive']).toContain(report.verdict)
    expect(r.code).toBe(report.verdict === 'regression' ? 1 : 0)
    expect(report.schema).toBe('gpu-overhead/aggregate@1')
    expect(report.groups).toHaveLength(1)
    const g = report.groups[0]!
    expect(g.sources.map(s => s.label)).toEqual(['A', 'B'])
    expect(g.baseline_env).toBe('native')
    expect(g.candidate_envs).toEqual(['container'])
    expect(g.key.arms[1]!.image_digest).toMatch(/^sha256:[a-f0-9]{64}$/)
    const steady = g.analysis!.comparisons.filter(c => c.scope === 'steady')
    // TFLOP/s is derived from kernel time: shown, not gated a second time.
    expect(steady.map(c => c.metric)).toEqual(['kernel_ms'])
    expect(g.analysis!.comparisons.find(c => c.metric === 'tflops')?.scope).toBe('derived')
    for (const c of g.analysis!.comparisons) expect([c.n_baseline, c.n_candidate]).toEqual([6, 6])
    expect(g.runs.native).toEqual(['A/1', 'A/2', 'A/3', 'B/1', 'B/2', 'B/3'])

    const md = fs.readFileSync(path.join(ws, 'agg', 'aggregate.md'), 'utf8')
    expect(md.split('\n')[0]).toMatch(/^\*\*[A-Z]+\*\*.*2 result folders in 1 group/)
    expect(md).toContain('All 2 result folders share one fingerprint and were pooled.')
    expect(md).toMatch(/ 6\/6 \|/)
    // The same text; stdout passes the log's rules, which drop invisible characters (the zero-width space the
    // markdown puts into a link it must not make live).
    expect(r.stdout).toBe(md.replace(/\u200b/g, ''))
  })

  it('with the default 2% limit the exit code follows the verdict', () => {
    const r = cli(['aggregate', 'A', 'B', '--out', 'agg2', '--format', 'json'])
    const report = JSON.parse(r.stdout) as AggregateReport
    expect(r.code).toBe(report.verdict === 'regression' ? 1 : 0)
  })

  it('a check on another GPU/driver (doctored copy) is a group of its own, with the reason', () => {
    doctorCopy('B', 'B-doctored')
    const r = cli(['aggregate', 'A', 'B', 'B-doctored', '--out', 'agg3', '--max-overhead', '50%'])
    const report = readJson<AggregateReport>(path.join(ws, 'agg3', 'aggregate.json'))
    expect(r.code).toBe(report.verdict === 'regression' ? 1 : 0)
    expect(report.groups.map(g => g.sources.map(s => s.label))).toEqual([['A', 'B'], ['B-doctored']])
    const [g1, g2] = report.groups
    expect(g1!.analysis!.comparisons[0]!.n_baseline).toBe(6)
    expect(g2!.analysis!.comparisons[0]!.n_baseline).toBe(3)
    expect(g2!.not_pooled_with).toEqual({
      group: 'G1',
      differences: [`gpu_name: unknown vs ${DOCTORED.gpu_name}`, `driver: unknown vs ${DOCTORED.driver}`]
    })
    const md = fs.readFileSync(path.join(ws, 'agg3', 'aggregate.md'), 'utf8')
    expect(md).toContain(
      `- G2 not pooled with G1: gpu_name: unknown vs ${DOCTORED.gpu_name}; driver: unknown vs ${DOCTORED.driver}`
    )
    expect(md).toContain('## Side by side')
    expect(md).toMatch(/## G2 — cpu, TEST-DOCTORED GPU/)
  })

  it('is a listed command with its own help', () => {
    expect(cli(['--help']).stdout).toContain('aggregate')
    const help = cli(['aggregate', '--help'])
    expect(help.code).toBe(0)
    for (const flag of ['--out', '--format', '--max-overhead', '--alpha']) expect(help.stdout).toContain(flag)
  })

  it('bad folders exit 2 with one line naming the folder', () => {
    const missing = cli(['aggregate', 'A', 'no-such-dir'])
    expect(missing.code).toBe(2)
    expect(missing.stderr.trim().split('\n')).toHaveLength(1)
    expect(missing.stderr).toMatch(/'DIR': got "no-such-dir".*does not exist/)

    fs.mkdirSync(path.join(ws, 'half'))
    fs.copyFileSync(path.join(ws, 'A', 'results.jsonl'), path.join(ws, 'half', 'results.jsonl'))
    const half = cli(['aggregate', 'half'])
    expect(half.code).toBe(2)
    expect(half.stderr).toMatch(/"half".*summary.json is missing/)

    expect(cli(['aggregate', 'A', 'A']).code).toBe(2)
    expect(cli(['aggregate', 'A', '--alpha', '7']).code).toBe(2)
    expect(cli(['aggregate']).code).toBe(2)
  })
})

describe('the action in mode: aggregate (dist/index.js as the runner runs it)', () => {
  // The layout download-artifact leaves: one folder per matrix leg under `fleet/`, and a leg that died
  // before writing summary.json.
  function action(inputs: Record<string, string>): { code: number | null; stdout: string; out: string } {
    const files = fs.mkdtempSync(path.join(os.tmpdir(), 'gha-'))
    const env: NodeJS.ProcessEnv = { ...process.env, GITHUB_WORKSPACE: ws, RUNNER_TEMP: files }
    for (const f of ['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY', 'GITHUB_STATE']) {
      env[f] = path.join(files, f)
      fs.writeFileSync(env[f], '')
    }
    for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v
    const r = spawnSync('node', [path.resolve('dist/index.js')], {
      cwd: ws,
      env,
      encoding: 'utf8',
      timeout: 120_000
    })
    return {
      code: r.status,
      stdout: r.stdout,
      out: fs.readFileSync(env.GITHUB_OUTPUT!, 'utf8') + fs.readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8')
    }
  }

  it('merges the legs under one folder, warns about a leg without summary.json, sets the outputs', () => {
    for (const leg of ['A', 'B'])
      fs.cpSync(path.join(ws, leg), path.join(ws, 'fleet', `fleet-${leg}`), { recursive: true })
    fs.mkdirSync(path.join(ws, 'fleet', 'fleet-dead'))
    const r = action({
      mode: 'aggregate',
      'aggregate-dirs': 'fleet',
      out: 'fleet-report',
      'max-overhead': '50%'
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('::warning::aggregate: ' + path.join(ws, 'fleet', 'fleet-dead'))
    // The CPU toy kernel is noisy: a leg may be undecided (its mean pays an outlier iteration), never a failure.
    expect(r.out).toMatch(/verdict<<ghadelimiter_[\w-]+\n(pass|incomparable|inconclusive)\n/)
    expect(r.out).toContain(path.join(ws, 'fleet-report', 'aggregate.md'))
    expect(r.out).toContain('All 2 result folders share one fingerprint and were pooled.')
    const report = readJson<AggregateReport>(path.join(ws, 'fleet-report', 'aggregate.json'))
    expect(report.groups[0]!.sources.map(s => s.label)).toEqual(['fleet-A', 'fleet-B'])
  })

  it('names the input when there is nothing to merge, and fails the step', () => {
    fs.mkdirSync(path.join(ws, 'empty-fleet'))
    const r = action({ mode: 'aggregate', 'aggregate-dirs': 'empty-fleet' })
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(
      /::error::input 'aggregate-dirs': got "empty-fleet"; allowed: result folders .* none holds summary.json/
    )
    const bad = action({ mode: 'fleet' })
    expect(bad.stdout).toMatch(/::error::input 'mode': got "fleet"; allowed: check \| aggregate/)
  })
})
