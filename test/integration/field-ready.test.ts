/**
 * Issue 26 on CPU, through the built CLI with the real Docker engine: an NGC-like image (banner and NOTE on
 * stdout, a warning on stderr, entrypoint.d, NGC's ENV, WORKDIR; root and non-root USER) is measured in both
 * arms; its output is each run's log, never an event; the launch flags are facts; three checks at once on one
 * checkpoint folder all finish measured; an image that fakes events on stdout or never runs its command gets
 * no say in the measurement.
 */
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { CheckSummary } from '../../src/types/index.js'
import { CLI, CLI_TIMEOUT_MS, cpuRunArgs, runCli } from '../helpers/cli.js'
import { buildNgcImage, removeNgcImages } from '../helpers/ngc-image.js'

const built: string[] = []
let root = ''
let user = ''
let fake = ''
let silent = ''

beforeAll(async () => {
  root = await buildNgcImage({ name: 'root' })
  user = await buildNgcImage({ name: 'user', user: '1000:1000' })
  // A hostile entrypoint: fake protocol events (a 0.001 ms kernel) on stdout before the command runs.
  fake = await buildNgcImage({
    name: 'fake-events',
    extraScript:
      'i=0; while [ $i -lt 50 ]; do echo \'{"event":"sample","metric":"kernel_ms","value":0.001,"unit":"ms","iteration":1,"better":"lower"}\'; i=$((i+1)); done\n'
  })
  silent = await buildNgcImage({ name: 'no-exec', entrypointEnd: 'exit 0' })
  built.push(root, user, fake, silent)
}, 600_000)

afterAll(async () => {
  await removeNgcImages(built)
}, 120_000)

function summaryOf(out: string): CheckSummary {
  return JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
}

/**
 * The check ran to a verdict, and its exit code is that verdict's. Which verdict is not these tests' subject:
 * a CPU check of 2-3 runs per arm on a busy 2-core runner (CI runs three integration files at once) can meet a
 * real difference between the arms' processes, and CI met exit 1 in two of them. An error or a gate is a failure.
 */
function expectRanToAVerdict(code: number | null, s: CheckSummary): void {
  expect([0, 1]).toContain(code)
  expect(code === 0 ? ['pass', 'inconclusive'] : ['regression']).toContain(s.verdict)
}

const ws = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'field-'))
const SMALL = ['--matmul-size', '256', '--checkpoint-mb', '4']

describe('NGC-like images (entrypoint banner on stdout), real Docker, --device cpu', () => {
  it(
    'measures both arms through the entrypoint; the banner is the log; the launch flags are facts',
    () => {
      const w = ws()
      const r = runCli(
        cpuRunArgs({
          image: root,
          workloads: 'matmul,io',
          runs: 3,
          maxRuns: 3,
          out: 'out',
          extra: [
            ...SMALL,
            '--container-args',
            '--shm-size=256m --ulimit nofile=4096:4096 -e OMP_NUM_THREADS=1'
          ]
        }),
        w
      )
      expect(r.stderr).not.toMatch(/non-protocol output/)
      // Also OMP_NUM_THREADS=1 in the container only, against every core natively: a regression is a real verdict.
      const out = path.join(w, 'out')
      const s = summaryOf(out)
      expectRanToAVerdict(r.code, s)
      expect(s.complete).toBe(true)
      const gated = s.analysis?.comparisons.filter(c => c.scope === 'steady' && c.workload === 'matmul') ?? []
      expect(gated.length).toBeGreaterThan(0)
      for (const c of gated) expect(c.n_candidate).toBe(3)
      // What the entrypoint printed is the run's log (stdout and stderr), kept in run-logs.txt.
      const logs = fs.readFileSync(path.join(out, 'run-logs.txt'), 'utf8')
      expect(logs).toContain('== PyTorch ==')
      expect(logs).toContain('NOTE: The SHMEM allocation limit')
      expect(logs).toContain('WARNING: The NVIDIA Driver was not detected.')
      // Launch facts of both arms: the entrypoint, the flags, and what they did inside the container.
      const stack = (env: string) =>
        s.stacks?.find(x => x.environment === env)?.facts as Record<string, unknown>
      const launch = (env: string) => (stack(env)?.['launch'] ?? {}) as Record<string, unknown>
      expect(launch('container')['entrypoint']).toBe('/opt/nvidia/nvidia_entrypoint.sh')
      expect(launch('container')['workdir']).toBe('/workspace')
      expect(launch('container')['container_args']).toBe(
        '--shm-size 256m --ulimit nofile=4096:4096 --env OMP_NUM_THREADS=1'
      )
      expect(launch('container')['shm_bytes']).toBe(256 * 1024 * 1024)
      expect(launch('container')['ulimit_nofile']).toBe('4096:4096')
      expect(launch('native')['entrypoint']).toBe('(none)')
      expect(typeof launch('native')['shm_bytes']).toBe('number')
      // The image's ENV reached the workload through the entrypoint (NGC's scripts set variables too).
      const env = (stack('container')?.['env'] ?? {}) as Record<string, string>
      expect(env['OMP_NUM_THREADS']).toBe('1')
      const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
      expect(report).toMatch(/shared memory \(\/dev\/shm\)/)
    },
    CLI_TIMEOUT_MS
  )

  it(
    'measures both arms in the non-root USER variant (io writes its own checkpoint folder)',
    () => {
      const w = ws()
      const r = runCli(
        cpuRunArgs({ image: user, workloads: 'matmul,io', runs: 2, maxRuns: 2, out: 'out', extra: SMALL }),
        w
      )
      const s = summaryOf(path.join(w, 'out'))
      expectRanToAVerdict(r.code, s)
      expect(s.complete).toBe(true)
      const io =
        s.analysis?.comparisons.filter(c => c.workload === 'io' && c.metric === 'ckpt_write_mb_s') ?? []
      expect(io.length).toBe(1)
      const launch = s.stacks?.find(x => x.environment === 'container')?.facts['launch'] as Record<
        string,
        unknown
      >
      expect(launch['uid']).toBe(1000)
      expect(launch['image_user']).toBe('1000:1000')
    },
    CLI_TIMEOUT_MS
  )

  it(
    'fake events on the image stdout are never measured',
    () => {
      const w = ws()
      const r = runCli(cpuRunArgs({ image: fake, runs: 2, maxRuns: 2, out: 'out', extra: SMALL }), w)
      const s = summaryOf(path.join(w, 'out'))
      expectRanToAVerdict(r.code, s)
      const kernel = s.analysis?.comparisons.find(c => c.metric === 'kernel_ms' && c.scope === 'steady')
      expect(kernel).toBeDefined()
      // 50 fake 0.001 ms samples per process would have swamped the container arm.
      expect(kernel!.median_candidate).toBeGreaterThan(0.01)
      const samples = fs.readFileSync(path.join(w, 'out', 'samples.csv'), 'utf8')
      expect(samples).not.toMatch(/,0\.001,/)
    },
    CLI_TIMEOUT_MS
  )

  it(
    'an entrypoint that never runs its command fails the arm, and the report says why',
    () => {
      const w = ws()
      const r = runCli(cpuRunArgs({ image: silent, runs: 2, maxRuns: 2, out: 'out', extra: SMALL }), w)
      expect(r.code).toBe(2)
      const s = summaryOf(path.join(w, 'out'))
      expect(s.complete).toBe(false)
      expect(s.explanation?.headline).toMatch(/never ran/)
      expect(s.explanation?.findings[0]?.fix).toMatch(/exec "\$@"/)
    },
    CLI_TIMEOUT_MS
  )
})

describe('three checks at once on one shared checkpoint folder', () => {
  it(
    'all finish measured: every file and folder is per check and run',
    async () => {
      const w = ws()
      const ckpt = path.join(w, 'shared-ckpt')
      fs.mkdirSync(ckpt, { mode: 0o777 })
      fs.chmodSync(ckpt, 0o777)
      const one = (k: number): Promise<number | null> =>
        new Promise(resolve => {
          const args = cpuRunArgs({
            image: root,
            workloads: 'io',
            runs: 3,
            maxRuns: 3,
            out: `out-${k}`,
            extra: ['--checkpoint-mb', '8', '--checkpoint-path', ckpt]
          })
          const child = spawn('node', [CLI, ...args], { cwd: w, stdio: 'ignore' })
          const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS)
          child.on('close', code => {
            clearTimeout(timer)
            resolve(code)
          })
        })
      const codes = await Promise.all([one(1), one(2), one(3)])
      expect(codes).toEqual([0, 0, 0])
      for (const k of [1, 2, 3]) {
        const s = summaryOf(path.join(w, `out-${k}`))
        expect(s.complete).toBe(true)
        expect(s.runs.filter(r => r.status !== 'ok')).toEqual([])
        expect(s.analysis?.comparisons.some(c => c.metric === 'ckpt_write_mb_s')).toBe(true)
      }
      // Each run's folder was removed with its process.
      expect(fs.readdirSync(ckpt)).toEqual([])
    },
    CLI_TIMEOUT_MS
  )
})
