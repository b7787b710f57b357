/**
 * The power-cap sweep's control logic: caps set in order on every GPU, the original limits put back on
 * success, on a thrown error and on cancel, skipped (with the check still run) without root or when the
 * driver refuses, and a restore file left by a killed check put back by the next one or the post step.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Lane } from '../../src/types/index.js'
import { PowerLimiter, restoreFromFile, validateCaps } from '../../src/execute/power-caps.js'
import { sweepPowerCaps } from '../../src/execute/power-sweep.js'
import { restoreFileFor } from '../../src/execute/restore-file.js'
import type { ExecuteResult } from '../../src/execute/runner.js'
import { parseQueryGpuCsv } from '../../src/preflight/gpu.js'
import { silentLogger } from '../../src/util/log.js'

const STAND_IN = path.resolve('test/execute/fixtures/power-smi.sh')
const h200 = parseQueryGpuCsv(
  fs.readFileSync(path.resolve('test/__fixtures__/nvidia-smi/query-gpu-preflight.csv'), 'utf8')
)
// The two H200s of the recorded 2-GPU host (test/__fixtures__/nvidia-smi-2gpu/query-gpu-preflight-2gpu.csv).
const GPU_A = 'GPU-2040113e-53cf-9a7b-aac6-1e1a98aecbb3'
const GPU_B = 'GPU-3162f25e-05ac-c984-bcd4-d9aa0cb33e5a'
const lanes: Lane[] = [
  { index: 0, uuid: GPU_A, name: 'NVIDIA H200', minor: 0 },
  { index: 1, uuid: GPU_B, name: 'NVIDIA H200', minor: 1 }
]

let dir = ''
let SMI = ''
// Jest gives tests a copy of process.env that child processes never see: the state dir goes in a wrapper.
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'power-'))
  SMI = path.join(dir, 'nvidia-smi')
  fs.writeFileSync(SMI, `#!/bin/bash\nPOWER_SMI_DIR=${dir} exec ${STAND_IN} "$@"\n`, { mode: 0o755 })
  for (const g of [GPU_A, GPU_B]) fs.writeFileSync(path.join(dir, g), '700')
})
const refuse = (watts: number): void => fs.writeFileSync(path.join(dir, 'refuse'), String(watts))

const limit = (gpu: string): number => Number(fs.readFileSync(path.join(dir, gpu), 'utf8'))
const stateEnv = (): NodeJS.ProcessEnv => ({ GPU_OVERHEAD_STATE_DIR: path.join(dir, 'state') })
const restoreFile = (): string => restoreFileFor([GPU_A, GPU_B], stateEnv())
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
      seen.push(cap === null ? null : `${cap}:${limit(GPU_A)}/${limit(GPU_B)}`)
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
      GPU_A,
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
    expect([limit(GPU_A), limit(GPU_B)]).toEqual([700, 700])
    expect(fs.existsSync(restoreFile())).toBe(false)
  })

  it('puts the limits back when the plan throws, and lets the error through', async () => {
    const { promise } = sweep([400, 550], { runPlan: () => Promise.reject(new Error('boom')) })
    await expect(promise).rejects.toThrow('boom')
    expect([limit(GPU_A), limit(GPU_B)]).toEqual([700, 700])
    expect(fs.existsSync(restoreFile())).toBe(false)
  })

  it('stops at a cancel, reports a partial sweep and puts the limits back', async () => {
    const controller = new AbortController()
    const { promise, seen } = sweep([400, 550, 600], {
      signal: controller.signal,
      runPlan: cap => {
        seen.push(`${cap}:${limit(GPU_A)}`)
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
    expect(limit(GPU_A)).toBe(700)
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
    expect(r.power.reason).toMatch(/nvidia-smi -i GPU-2040113e\S* -pl 400 failed \(exit 4\)/)
    expect([limit(GPU_A), limit(GPU_B)]).toEqual([700, 700])
  })

  it('a cap refused mid-sweep keeps what was measured and marks the check incomplete', async () => {
    refuse(550)
    const { promise, seen } = sweep([400, 550])
    const r = await promise
    expect(seen).toEqual(['400:400/400'])
    expect(r.power.status).toBe('partial')
    expect(r.exec.complete).toBe(false)
    expect(r.exec.incompleteReason).toMatch(
      /power-cap sweep stopped: nvidia-smi -i GPU-2040113e\S* -pl 550 failed/
    )
    expect([limit(GPU_A), limit(GPU_B)]).toEqual([700, 700])
  })
})

describe('restore file', () => {
  it('a check killed mid-sweep leaves the originals on disk; restoreFromFile puts them back once', async () => {
    const limiter = await PowerLimiter.create(lanes, { restoreFile: restoreFile(), nvidiaSmi: SMI, euid: 0 })
    if (typeof limiter === 'string') throw new Error(limiter)
    expect(await limiter.apply(400)).toBeNull()
    // (killed here: no restore)
    expect(limit(GPU_B)).toBe(400)
    const r = await restoreFromFile(restoreFile(), SMI)
    expect(r?.failures).toEqual([])
    expect(r?.restored.map(l => [l.gpu, l.limit_w])).toEqual([
      [0, 700],
      [1, 700]
    ])
    expect([limit(GPU_A), limit(GPU_B)]).toEqual([700, 700])
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
    process.env['STATE_power-restore-file'] = 'true'
    process.env.GPU_OVERHEAD_STATE_DIR = path.join(dir, 'state')
    process.env.PATH = `${dir}:${process.env.PATH ?? ''}`
    try {
      const { run } = await import('../../src/entry/action/main.js')
      await run()
    } finally {
      process.env = env
    }
    expect([limit(GPU_A), limit(GPU_B)]).toEqual([700, 700])
    expect(fs.existsSync(restoreFile())).toBe(false)
  })
})

describe('a restore file is executed only when this tool wrote it (issue 16, case 4)', () => {
  const ATTACK = JSON.stringify({
    limits: [
      { uuid: '0,1,2,3,4,5,6,7', limit_w: '100' },
      { uuid: '--id=0', limit_w: 1 }
    ]
  })
  const plCalls = (): string[] =>
    (fs.existsSync(path.join(dir, 'calls')) ? fs.readFileSync(path.join(dir, 'calls'), 'utf8') : '')
      .split('\n')
      .filter(l => l.includes('-pl'))

  it("the tree's power-restore.json is never read: the post step acts on the state folder only", async () => {
    // The committed attack file where the old tool looked for it (the results folder), power-caps unset.
    const out = path.join(dir, 'ws', 'gpu-overhead-results')
    fs.mkdirSync(out, { recursive: true })
    fs.writeFileSync(path.join(out, 'power-restore.json'), ATTACK)
    const env = { ...process.env }
    process.env['STATE_is-post'] = 'true'
    process.env['STATE_power-restore-file'] = path.join(out, 'power-restore.json')
    process.env.GPU_OVERHEAD_STATE_DIR = path.join(dir, 'state')
    process.env.PATH = `${dir}:${process.env.PATH ?? ''}`
    try {
      const { run } = await import('../../src/entry/action/main.js')
      await run()
    } finally {
      process.env = env
    }
    expect(plCalls()).toEqual([])
  })

  it('the attack content in the state folder, without the HMAC, is refused and nothing runs', async () => {
    fs.mkdirSync(path.join(dir, 'state'), { mode: 0o700 })
    fs.writeFileSync(restoreFile(), ATTACK)
    const r = await restoreFromFile(restoreFile(), SMI)
    expect(r?.failures.join()).toMatch(/did not act on .*(no key|not a restore file)/)
    expect(plCalls()).toEqual([])
  })

  it('a forged or edited file is refused by its HMAC; argv values never lead with -', async () => {
    const limiter = await PowerLimiter.create(lanes, { restoreFile: restoreFile(), nvidiaSmi: SMI, euid: 0 })
    if (typeof limiter === 'string') throw new Error(limiter)
    const signed = JSON.parse(fs.readFileSync(restoreFile(), 'utf8')) as { body: string; mac: string }
    const body = JSON.parse(signed.body) as { limits: { uuid: string; limit_w: number }[] }
    body.limits[0]!.uuid = '--id=0'
    fs.writeFileSync(restoreFile(), JSON.stringify({ body: JSON.stringify(body), mac: signed.mac }))
    const r = await restoreFromFile(restoreFile(), SMI)
    expect(r?.failures.join()).toMatch(/signature does not match/)
    expect(plCalls()).toEqual([])
  })

  it('a signed file naming a GPU that is not present, or a limit outside min/max, is refused', async () => {
    const { writeRestoreFile } = await import('../../src/execute/restore-file.js')
    const absent = 'GPU-00000000-0000-0000-0000-000000000000'
    writeRestoreFile(restoreFile(), [{ gpu: 0, uuid: absent, limit_w: 700 }])
    expect((await restoreFromFile(restoreFile(), SMI))?.failures.join()).toMatch(/not present/)
    writeRestoreFile(restoreFile(), [{ gpu: 0, uuid: GPU_A, limit_w: 1 }])
    expect((await restoreFromFile(restoreFile(), SMI))?.failures.join()).toMatch(
      /1 W is outside GPU \S+ range 200–700 W/
    )
    expect(plCalls()).toEqual([])
  })
})

describe('the post step trusts only a restore folder of its own (issue 29, class 8)', () => {
  const plCalls = (): string[] =>
    (fs.existsSync(path.join(dir, 'calls')) ? fs.readFileSync(path.join(dir, 'calls'), 'utf8') : '')
      .split('\n')
      .filter(l => l.includes('-pl'))

  async function postStep(): Promise<string> {
    const env = { ...process.env }
    const out: string[] = []
    const write = process.stdout.write.bind(process.stdout)
    process.stdout.write = (s: string) => (out.push(String(s)), true)
    process.env['STATE_is-post'] = 'true'
    process.env['STATE_power-restore-file'] = 'true'
    process.env.GPU_OVERHEAD_STATE_DIR = path.join(dir, 'state')
    process.env.PATH = `${dir}:${process.env.PATH ?? ''}`
    try {
      const { run } = await import('../../src/entry/action/main.js')
      await run()
    } finally {
      process.env = env
      process.stdout.write = write
    }
    return out.join('')
  }

  /** A folder with a key and a signed restore file that a real sweep left, then opened up (0777) or given away. */
  async function plantedFolder(change: (folder: string) => void): Promise<void> {
    const limiter = await PowerLimiter.create(lanes, { restoreFile: restoreFile(), nvidiaSmi: SMI, euid: 0 })
    if (typeof limiter === 'string') throw new Error(limiter)
    await limiter.apply(450)
    fs.rmSync(path.join(dir, 'calls'), { force: true })
    change(path.join(dir, 'state'))
  }

  it('a restore folder of mode 0777 is ignored with a warning: nothing runs', async () => {
    await plantedFolder(f => fs.chmodSync(f, 0o777))
    const log = await postStep()
    expect(log).toMatch(/::warning::.*power restore folder .* has mode 777, not 700; ignored/)
    expect(plCalls()).toEqual([])
  })

  it('a restore folder of another user is ignored with a warning: nothing runs', async () => {
    if (process.getuid?.() !== 0) return // only root can give a folder away; the mode case above runs everywhere
    await plantedFolder(f => fs.chownSync(f, 65534, 65534))
    const log = await postStep()
    expect(log).toMatch(/::warning::.*belongs to uid 65534/)
    expect(plCalls()).toEqual([])
  })
})
