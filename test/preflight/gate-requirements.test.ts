/**
 * `gpu-overhead gate` and the check's preflight judge an image's NVIDIA_REQUIRE_* through the same function
 * (preflight/driver-checks.ts): same rows, same pass/warn/fail, same exit code. Real images (`docker import`
 * of an empty root filesystem with the ENV under test; removed afterwards), the recorded H200 host
 * (replay-nvidia-smi.sh: driver 580.159.04, CUDA 13.0, "Product Brand: NVIDIA") or a driver given by hand.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gateCommand } from '../../src/commands/gate.js'
import type { GateCommandOptions } from '../../src/commands/gate-evaluate.js'
import { exitCodeFor } from '../../src/gate/index.js'
import { readFileSync } from 'node:fs'
import { visibleGpus } from '../../src/preflight/driver-checks.js'
import { parseQueryGpuCsv } from '../../src/preflight/gpu.js'
import { preflightStatus, runPreflight } from '../../src/preflight/run.js'
import type { GpuAccess, PreflightResult } from '../../src/types/index.js'
import { execCapture } from '../../src/util/exec.js'

const REPLAY = path.join(import.meta.dirname, 'fixtures/replay-nvidia-smi.sh')
const HOST_DRIVER = '580.159.04'
const TAG = 'local/gpu-overhead-test:require'

/** Each image: its ENV (Dockerfile `ENV` lines for docker import). */
const IMAGES = {
  // Any NVIDIA_REQUIRE_* counts, not only _CUDA: a driver this host does not have.
  unmet: ['CUDA_VERSION=13.0.0', 'NVIDIA_REQUIRE_CUDA=cuda>=13.0', 'NVIDIA_REQUIRE_DRIVER=driver>=590'],
  met: ['CUDA_VERSION=13.0.0', 'NVIDIA_REQUIRE_CUDA="cuda>=13.0 brand=tesla,driver>=535,driver<536"'],
  // Only the brand alternative can hold on driver 580 (it supports CUDA 13.0, not 13.2).
  brandNvidia: [
    'CUDA_VERSION=13.0.0',
    'NVIDIA_REQUIRE_CUDA="cuda>=13.2 brand=nvidia,driver>=580,driver<581"'
  ],
  brandTesla: ['CUDA_VERSION=13.0.0', 'NVIDIA_REQUIRE_CUDA="cuda>=13.2 brand=tesla,driver>=580,driver<581"']
} as const
type Name = keyof typeof IMAGES
const tag = (name: Name): string => `${TAG}-${name.toLowerCase()}`

let dir: string
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gate-require-'))
  const tar = path.join(dir, 'rootfs.tar')
  const made = await execCapture('tar', ['-C', dir, '--exclude', 'rootfs.tar', '-cf', tar, '.'])
  if (made.exitCode !== 0) throw new Error(made.stderr)
  for (const name of Object.keys(IMAGES) as Name[]) {
    const changes = IMAGES[name].flatMap(kv => ['-c', `ENV ${kv}`])
    const res = await execCapture('docker', ['import', ...changes, tar, tag(name)])
    if (res.exitCode !== 0) throw new Error(res.stderr)
  }
})
afterAll(async () => {
  await execCapture('docker', ['rmi', ...(Object.keys(IMAGES) as Name[]).map(tag)])
  rmSync(dir, { recursive: true, force: true })
})

const gateOpts = (name: Name, more: Partial<GateCommandOptions> = {}): GateCommandOptions => ({
  image: tag(name),
  strict: false,
  format: 'json',
  runtime: 'docker',
  ...more
})

interface GateJson {
  status: string
  exit_code: number
  message: string
  checks: Pick<PreflightResult, 'name' | 'status' | 'message' | 'fix'>[]
  nvidia_require: { status: string; outcomes: { source: string; result: string }[]; brands: unknown[] } | null
}
const json = async (opts: GateCommandOptions): Promise<{ j: GateJson; exitCode: number }> => {
  const r = await gateCommand(opts)
  return { j: JSON.parse(r.text) as GateJson, exitCode: r.exitCode }
}

/** The check's preflight on the recorded H200 host: its driver-gate and nvidia-require rows. */
async function preflightRows(name: Name, gpuAccess: GpuAccess = 'gpus'): Promise<PreflightResult[]> {
  const out = await runPreflight({
    device: 'gpu',
    gpuAccess,
    image: tag(name),
    runtime: 'docker',
    strict: false,
    nvidiaSmi: REPLAY
  })
  return out.results
    .filter(r => r.name === 'driver-gate' || r.name === 'nvidia-require')
    .map(({ name: n, status, message, fix }) => ({ name: n, status, message, fix }))
}

describe('gate evaluates NVIDIA_REQUIRE_* like the check', () => {
  it('a requirement the driver does not meet fails, naming the variable and the condition (exit 1)', async () => {
    const { j, exitCode } = await json(gateOpts('unmet', { driver: HOST_DRIVER }))
    expect(exitCode).toBe(1)
    expect(j.status).toBe('fail')
    expect(j.message).toContain('NVIDIA_REQUIRE_DRIVER: unsatisfied condition: driver>=590')
    expect(j.checks.map(c => [c.name, c.status])).toEqual([
      ['driver-gate', 'pass'],
      ['nvidia-require', 'fail']
    ])
    const text = await gateCommand(gateOpts('unmet', { driver: HOST_DRIVER, format: 'text' }))
    expect(text.exitCode).toBe(1)
    expect(text.text).toMatch(/^PASS driver-gate: /)
    expect(text.text).toMatch(
      /^FAIL nvidia-require: NVIDIA_REQUIRE_DRIVER: unsatisfied condition: driver>=590 \(false here: driver>=590\); driver 580\.159\.04 .*refuses to start this container under --gpus$/m
    )
    expect(text.text).toMatch(/^ {2}fix: upgrade the host driver/m)
    expect(text.text).toContain(
      'note: with --driver, the CUDA version the driver supports (13.0) comes from its branch, and the GPU brand and compute capability are unknown'
    )
  })

  it('a requirement the driver meets passes (exit 0)', async () => {
    const { j, exitCode } = await json(gateOpts('met', { driver: HOST_DRIVER }))
    expect([j.status, exitCode]).toEqual(['pass', 0])
    expect(j.nvidia_require?.status).toBe('pass')
  })

  it('under gpu-access devices/cdi nothing enforces it: the same words as a warning (exit 0)', async () => {
    for (const access of ['devices', 'cdi'] as const) {
      const { j, exitCode } = await json(gateOpts('unmet', { driver: HOST_DRIVER, gpuAccess: access }))
      expect([j.status, exitCode]).toEqual(['warn', 0])
      expect(j.message).toContain('NVIDIA_REQUIRE_DRIVER: unsatisfied condition: driver>=590')
    }
  })

  it.each<[Name, GpuAccess, string]>([
    ['unmet', 'gpus', 'fail'],
    ['unmet', 'devices', 'warn'],
    ['met', 'gpus', 'pass'],
    ['brandNvidia', 'gpus', 'pass'],
    ['brandTesla', 'gpus', 'fail']
  ])('%s under %s: the check and gate give the same rows and outcome (%s)', async (name, access, want) => {
    const rows = await preflightRows(name, access)
    const { j, exitCode } = await json(gateOpts(name, { nvidiaSmi: REPLAY, gpuAccess: access }))
    expect(j.checks).toEqual(rows)
    expect(j.status).toBe(want)
    expect(preflightStatus(rows)).toBe(want)
    expect(exitCode).toBe(exitCodeFor(preflightStatus(rows)))
    // The same exit code with a driver given by hand, where the outcome does not depend on the brand.
    if (name === 'unmet' || name === 'met')
      expect((await gateCommand(gateOpts(name, { driver: HOST_DRIVER, gpuAccess: access }))).exitCode).toBe(
        exitCode
      )
  })

  it('brand= conditions use the brand nvidia-smi -q reports (H200: NVIDIA)', async () => {
    const met = await json(gateOpts('brandNvidia', { nvidiaSmi: REPLAY }))
    expect(met.j.nvidia_require?.brands).toEqual(['NVIDIA'])
    expect(met.j.nvidia_require?.status).toBe('pass')
    const unmet = await json(gateOpts('brandTesla', { nvidiaSmi: REPLAY }))
    expect(unmet.exitCode).toBe(1)
    expect(unmet.j.message).toContain(
      'NVIDIA_REQUIRE_CUDA: unsatisfied condition: cuda>=13.2, please update your driver'
    )
    expect(unmet.j.message).toContain('false here: cuda>=13.2, brand=tesla')
  })

  it('brand unknown (driver given by hand): a brand condition is never passed silently, it warns', async () => {
    for (const name of ['brandNvidia', 'brandTesla'] as const) {
      const { j, exitCode } = await json(gateOpts(name, { driver: HOST_DRIVER }))
      expect([j.nvidia_require?.status, j.status, exitCode]).toEqual(['warn', 'warn', 0])
      expect(j.message).toContain('could not be decided: it depends on the GPU brand, which is unknown')
      expect(j.message).toContain('GPU brand unknown')
      expect(j.nvidia_require?.brands).toEqual([null])
    }
  })
})

describe('visibleGpus: brand and arch are judged on the GPUs the containers get', () => {
  // The 2-GPU host's recorded query (two H200s, indices 0 and 1).
  const gpus = parseQueryGpuCsv(
    readFileSync(
      path.join(import.meta.dirname, '../__fixtures__/nvidia-smi-2gpu/query-gpu-preflight-2gpu.csv'),
      'utf8'
    )
  )
  it.each<[string | null, number[]]>([
    ['all', [0, 1]],
    [null, [0, 1]],
    ['1', [1]],
    ['0, 1', [0, 1]],
    [gpus[1]!.uuid, [1]],
    ['MIG-0c7d2d36-0000-0000-0000-000000000000', [0, 1]], // a MIG device: its parent is not in the facts
    ['7', [0, 1]] // no such GPU: the run itself will say so; judge all rather than none
  ])('%s → GPUs %j', (devices, want) => expect(visibleGpus(gpus, devices).map(g => g.index)).toEqual(want))
})
