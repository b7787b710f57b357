/**
 * The power-cap sweep's control logic: caps set in order on every GPU, the original limits put back on
 * success, on a thrown error and on cancel, skipped (with the check still run) without root or when the
 * driver refuses, and a restore file left by a killed check put back by the next one or the post step.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Lane } from '../../src/plan/lanes.js'
import { PowerLimiter, restoreFromFile, validateCaps } from '../../src/execute/power-caps.js'
import { sweepPowerCaps } from '../../src/execute/power-sweep.js'
import type { ExecuteResult } from '../../src/execute/runner.js'
import { parseQueryGpuCsv } from '../../src/preflight/gpu.js'
import { silentLogger } from '../../src/util/log.js'

const STAND_IN = path.resolve('test/execute/fixtures/power-smi.sh')
const h200 = parseQueryGpuCsv(
  fs.readFileSync(path.resolve('test/__fixtures__/nvidia-smi/query-gpu-preflight.csv'), 'utf8')
)
const lanes: Lane[] = [
  { index: 0, uuid: 'GPU-a', name: 'NVIDIA H200', minor: 0 },
  { index: 1, uuid: 'GPU-b', name: 'NVIDIA H200', minor: 1 }
]

let dir = ''
let SMI = ''
// Jest gives tests a copy of process.env that child processes never see: the state dir goes in a wrapper.
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'power-'))
  SMI = path.join(dir, 'nvidia-smi')
  fs.writeFileSync(SMI, `#!/bin/bash\nPOWER_SMI_DIR=${dir} exec ${STAND_IN} "$@"\n`, { mode: 0o755 })
  for (const g of ['GPU-a', 'GPU-b']) fs.writeFileSync(path.join(dir, g), '700')
})
const refuse = (watts: number): void => fs.writeFileSync(path.join(dir, 'refuse'), String(watts))

const limit = (gpu: string): number => Number(fs.readFileSync(path.join(dir, gpu), 'utf8'))
const restoreFile = (): string => path.join(dir, 'out', 'power-restore.json')
const done = (cap: number | null): ExecuteResult => ({
  samples: [],
  runs: [],
  complete: true,
  incompleteReason: cap === null ? null : null
})

function sweep(caps: number[], extra: Partial<Parameters<typeof sweepPowerCaps>[0]> = {}) {
  const seen: (string | null)[] = []
  const promise = sweepPowerCaps({
    caps,
    lanes,
    restoreFile: restoreFile(),
    nvidiaSmi: SMI,
    euid: 0,
    logger: silentLogger,
    runPlan: cap => {
      // What the GPUs are really set to while the plan runs.
      seen.push(cap === null ? null : `${cap}:${limit('GPU-a')}/${limit('GPU-b')}`)
      return Promise.resolve(done(cap))
    },
    ...extra
  })
  return { promise, seen }
}

describe('the stand-in', () => {
  it('reads a limit back exactly as nvidia-smi printed it on the GPU host', async () => {
    const recorded = fs.readFileSync(
      path.resolve('test/__fixtures__/nvidia-smi-2gpu/power-limit-readback.csv'),
      'utf8'
    )
    const { execCapture } = await import('../../src/util/exec.js')
    const r = await execCapture(SMI, [
      '-i',
      'GPU-a',
      '--query-gpu=power.limit',
      '--format=csv,noheader,nounits'
    ])
    expect(r.stdout).toBe(recorded)
  })
})

describe('validateCaps', () => {
  it("accepts caps inside every GPU's range and names the range otherwise", () => {
    expect(() => validateCaps([200, 700], [lanes[0]!], h200)).not.toThrow()
    expect(() => validateCaps([150, 400], [lanes[0]!], h200)).toThrow(
      "input 'power-caps': got \"150,400\"; allowed: watts within GPU 0's range 200–700 W (nvidia-smi power.min_limit/power.max_limit); 150 W is outside it"
    )
  })
})

describe('sweepPowerCaps', () => {
  it('runs the plan at each cap in order on every GPU, then puts the limits back', async () => {
    const { promise, seen } = sweep([400, 550])
    const r = await promise
    expect(seen).toEqual(['400:400/400', '550:550/550'])
    expect(r.power).toMatchObject({
      status: 'swept',
      caps_w: [400, 550],
      reason: null,
      original_limits_w: [
        { gpu: 0, limit_w: 700 },
        { gpu: 1, limit_w: 700 }
      ],
      restored: true
    })
    expect([limit('GPU-a'), limit('GPU-b')]).toEqual([700, 700])
    expect(fs.existsSync(restoreFile())).toBe(false)
  })

  it('puts the limits back when the plan throws, and lets the error through', async () => {
    const { promise } = sweep([400, 550], { runPlan: () => Promise.reject(new Error('boom')) })
    await expect(promise).rejects.toThrow('boom')
    expect([limit('GPU-a'), limit('GPU-b')]).toEqual([700, 700])
    expect(fs.existsSync(restoreFile())).toBe(false)
  })

  it('stops at a cancel, reports a partial sweep and puts the limits back', async () => {
    const controller = new AbortController()
    const { promise, seen } = sweep([400, 550, 600], {
      signal: controller.signal,
      runPlan: cap => {
        seen.push(`${cap}:${limit('GPU-a')}`)
        controller.abort()
        return Promise.resolve({
          samples: [],
          runs: [],
          complete: false,
          incompleteReason: 'the check was cancelled'
        })
      }
    })
    const r = await promise
    expect(seen).toEqual(['400:400'])
    expect(r.power.status).toBe('partial')
    expect(r.exec.complete).toBe(false)
    expect(limit('GPU-a')).toBe(700)
  })

  it('without root: skipped with the reason, no limit touched, and the check still runs once', async () => {
    const { promise, seen } = sweep([400], { euid: 1000 })
    const r = await promise
    expect(seen).toEqual([null])
    expect(r.power.status).toBe('skipped')
    expect(r.power.reason).toMatch(
      /^setting a power limit needs root \(nvidia-smi -pl\), and this runner runs as user id 1000/
    )
    expect(fs.existsSync(path.join(dir, 'calls'))).toBe(false)
  })

  it('a cap the driver refuses at the start is a skip at the original limits', async () => {
    refuse(400)
    const { promise, seen } = sweep([400, 550])
    const r = await promise
    expect(seen).toEqual([null])
    expect(r.power.status).toBe('skipped')
    expect(r.power.reason).toMatch(/nvidia-smi -i GPU-a -pl 400 failed \(exit 4\)/)
    expect([limit('GPU-a'), limit('GPU-b')]).toEqual([700, 700])
  })

  it('a cap refused mid-sweep keeps what was measured and marks the check incomplete', async () => {
    refuse(550)
    const { promise, seen } = sweep([400, 550])
    const r = await promise
    expect(seen).toEqual(['400:400/400'])
    expect(r.power.status).toBe('partial')
    expect(r.exec.complete).toBe(false)
    expect(r.exec.incompleteReason).toMatch(/power-cap sweep stopped: nvidia-smi -i GPU-a -pl 550 failed/)
    expect([limit('GPU-a'), limit('GPU-b')]).toEqual([700, 700])
  })
})

describe('restore file', () => {
  it('a check killed mid-sweep leaves the originals on disk; restoreFromFile puts them back once', async () => {
    const limiter = await PowerLimiter.create(lanes, { restoreFile: restoreFile(), nvidiaSmi: SMI, euid: 0 })
    if (typeof limiter === 'string') throw new Error(limiter)
    expect(await limiter.apply(400)).toBeNull()
    // (killed here: no restore)
    expect(limit('GPU-b')).toBe(400)
    const r = await restoreFromFile(restoreFile(), SMI)
    expect(r?.failures).toEqual([])
    expect(r?.restored.map(l => [l.gpu, l.limit_w])).toEqual([
      [0, 700],
      [1, 700]
    ])
    expect([limit('GPU-a'), limit('GPU-b')]).toEqual([700, 700])
    expect(fs.existsSync(restoreFile())).toBe(false)
    expect(await restoreFromFile(restoreFile(), SMI)).toBeNull()
  })

  it('keeps the file when a limit cannot be put back', async () => {
    const limiter = await PowerLimiter.create(lanes, { restoreFile: restoreFile(), nvidiaSmi: SMI, euid: 0 })
    if (typeof limiter === 'string') throw new Error(limiter)
    await limiter.apply(400)
    refuse(700)
    const r = await limiter.restore()
    expect(r.restored).toBe(false)
    expect(r.failures[0]).toMatch(/-pl 700 failed \(exit 4\)/)
    expect(fs.existsSync(restoreFile())).toBe(true)
  })
})

describe("the action's post step", () => {
  it('puts the limits back from a restore file the killed main step left, then removes it', async () => {
    const limiter = await PowerLimiter.create(lanes, { restoreFile: restoreFile(), nvidiaSmi: SMI, euid: 0 })
    if (typeof limiter === 'string') throw new Error(limiter)
    await limiter.apply(450)
    // The runner runs `post:` with the state the main step saved (STATE_<name>) and nvidia-smi on PATH.
    const env = { ...process.env }
    process.env['STATE_is-post'] = 'true'
    process.env['STATE_power-restore-file'] = restoreFile()
    process.env.PATH = `${dir}:${process.env.PATH ?? ''}`
    try {
      const { run } = await import('../../src/entry/action/main.js')
      await run()
    } finally {
      process.env = env
    }
    expect([limit('GPU-a'), limit('GPU-b')]).toEqual([700, 700])
    expect(fs.existsSync(restoreFile())).toBe(false)
  })
})
