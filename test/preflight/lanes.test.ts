/**
 * Lanes: which GPUs a check pins to, each access mode's per-GPU form, and the executor starting one real
 * process per lane at the same time (two python processes here; on the GPU host, two GPUs).
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { containerGpuArgs, nativeGpuEnv } from '../../src/tools/gpu-access.js'
import { readDeviceMinors, resolveLanes, type Lane } from '../../src/preflight/lanes.js'
import { buildPlan } from '../../src/plan/schedule.js'
import { ResultsWriter } from '../../src/results/store.js'
import { executePlan } from '../../src/execute/runner.js'
import { parseQueryGpuCsv, type GpuFacts } from '../../src/preflight/gpu.js'
import type { Arm, Fingerprint } from '../../src/types/index.js'
import { silentLogger } from '../../src/util/log.js'

const FIX = path.resolve('test/__fixtures__/nvidia-smi')
const FIX2 = path.resolve('test/__fixtures__/nvidia-smi-2gpu')
const h200 = parseQueryGpuCsv(fs.readFileSync(path.join(FIX, 'query-gpu-preflight.csv'), 'utf8'))
/** Recorded on the two-H200 host (nvidia-h200-x2). */
const pair = parseQueryGpuCsv(fs.readFileSync(path.join(FIX2, 'query-gpu-preflight-2gpu.csv'), 'utf8'))
const [UUID0, UUID1] = [pair[0]!.uuid!, pair[1]!.uuid!]
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lanes-'))

/** The recorded pair; `model` renames the second board (no mixed-model host was at hand to record). */
function twoOf(model = 'NVIDIA H200'): GpuFacts[] {
  return [pair[0]!, { ...pair[1]!, name: model }]
}

/** The driver's /proc/driver/nvidia/gpus tree, rebuilt from its recording (`== <path>` then the file). */
function procTree(): string {
  const root = path.join(tmp, 'proc-gpus')
  const text = fs.readFileSync(path.join(FIX2, 'proc-driver-nvidia-gpus-information.txt'), 'utf8')
  for (const part of text.split(/^== /m).filter(Boolean)) {
    const [head, ...body] = part.split('\n')
    const bus = path.basename(path.dirname(head!.trim()))
    fs.mkdirSync(path.join(root, bus), { recursive: true })
    fs.writeFileSync(path.join(root, bus, 'information'), body.join('\n'))
  }
  return root
}

describe('resolveLanes', () => {
  it('takes every GPU for all, pinned by UUID with the driver minor number', () => {
    const minors = new Map([[h200[0]!.uuid!, 3]])
    expect(resolveLanes('all', h200, minors)).toEqual([
      { index: 0, uuid: h200[0]!.uuid, name: 'NVIDIA H200', minor: 3 }
    ])
    expect(resolveLanes('all', pair, readDeviceMinors(procTree()))).toEqual([
      { index: 0, uuid: UUID0, name: 'NVIDIA H200', minor: 0 },
      { index: 1, uuid: UUID1, name: 'NVIDIA H200', minor: 1 }
    ])
  })
  it('picks by index or UUID, in the order given', () => {
    const lanes = resolveLanes([UUID1, '0'], pair, new Map())!
    expect(lanes.map(l => l.index)).toEqual([1, 0])
  })
  it('names the GPUs there are when one does not exist', () => {
    expect(() => resolveLanes(['2'], pair, new Map())).toThrow(
      `input 'gpus': got "2"; allowed: all, or GPUs this host has: 0 (${UUID0}) NVIDIA H200, 1 (${UUID1}) NVIDIA H200`
    )
  })
  it('refuses a GPU twice and a mix of models', () => {
    expect(() => resolveLanes(['0', '0'], pair, new Map())).toThrow(/each GPU once/)
    expect(() => resolveLanes('all', twoOf('NVIDIA A100-SXM4-80GB'), new Map())).toThrow(
      /GPUs of one model \(this selection mixes NVIDIA H200 and NVIDIA A100-SXM4-80GB; pick one model, e.g. 0/
    )
  })
  it('leaves MIG instances, MIG-enabled GPUs and unknown facts to one unpinned process', () => {
    expect(resolveLanes('all', [pair[0]!, { ...pair[1]!, mig_mode: 'Enabled' }], new Map())).toBeNull()
    expect(resolveLanes(['MIG-11111111-2222-3333-4444-555555555555'], h200, new Map())).toBeNull()
    expect(resolveLanes('all', [], new Map())).toBeNull()
  })
})

describe('readDeviceMinors', () => {
  it('maps UUIDs to minor numbers from the driver information files, skipping unreadable ones', () => {
    const root = procTree()
    fs.mkdirSync(path.join(root, '0000:00:08.0'), { recursive: true }) // a bus folder without its file
    expect(readDeviceMinors(root)).toEqual(
      new Map([
        [UUID0, 0],
        [UUID1, 1]
      ])
    )
    expect(readDeviceMinors(path.join(tmp, 'nowhere'))).toEqual(new Map())
  })
})

describe('per-GPU forms of each access mode', () => {
  const lane: Lane = {
    index: 1,
    uuid: 'GPU-11111111-2222-3333-4444-555555555555',
    name: 'NVIDIA H200',
    minor: 4
  }
  const base = { device: 'gpu' as const, gpus: 'all' as const, driverMount: null }
  it('gpus and cdi use the nvidia-smi index', () => {
    expect(containerGpuArgs({ ...base, gpuAccess: 'gpus' }, lane)).toEqual(['--gpus', 'device=1'])
    expect(containerGpuArgs({ ...base, gpuAccess: 'cdi' }, lane)).toEqual(['--device', 'nvidia.com/gpu=1'])
  })
  it('devices hands over that GPU node by its minor number, plus the control nodes and driver', () => {
    const dev = path.join(tmp, 'dev')
    fs.mkdirSync(dev, { recursive: true })
    for (const n of ['nvidia0', 'nvidia4', 'nvidiactl', 'nvidia-uvm']) fs.writeFileSync(path.join(dev, n), '')
    const args = containerGpuArgs({ ...base, gpuAccess: 'devices', devDir: dev, driverMount: '/drv' }, lane)
    expect(args).toEqual([
      '--device',
      `${dev}/nvidia4`,
      '--device',
      `${dev}/nvidiactl`,
      '--device',
      `${dev}/nvidia-uvm`,
      '-v',
      '/drv:/drv:ro'
    ])
  })
  it('natively pins by UUID, or by PCI-ordered index when the UUID is unknown', () => {
    expect(nativeGpuEnv({ ...base, gpuAccess: 'gpus' }, lane)).toEqual({ CUDA_VISIBLE_DEVICES: lane.uuid })
    expect(nativeGpuEnv({ ...base, gpuAccess: 'gpus' }, { ...lane, uuid: null })).toEqual({
      CUDA_VISIBLE_DEVICES: '1',
      CUDA_DEVICE_ORDER: 'PCI_BUS_ID'
    })
  })
})

describe('executePlan on two lanes', () => {
  // A stand-in workload: real processes that report which GPU they were pinned to and when they ran.
  const script = path.join(tmp, 'lane.py')
  fs.writeFileSync(
    script,
    [
      'import json, os, time',
      't0 = time.time()',
      'time.sleep(0.4)',
      'print(json.dumps({"event": "sample", "metric": "kernel_ms", "value": 10.0, "unit": "ms", "iteration": 1, "better": "lower",',
      '                  "pinned": os.environ.get("CUDA_VISIBLE_DEVICES")}), flush=True)',
      'print(json.dumps({"event": "summary", "t0": t0, "t1": time.time()}), flush=True)'
    ].join('\n')
  )
  const lanes: Lane[] = [
    { index: 0, uuid: 'GPU-a', name: 'X', minor: 0 },
    { index: 1, uuid: 'GPU-b', name: 'X', minor: 1 }
  ]
  const arms: Arm[] = [
    { label: 'native', kind: 'native', image: null },
    { label: 'native#2', kind: 'native', image: null }
  ]

  it('starts one process per GPU at the same time, each its own run, pinned to its GPU', async () => {
    const out = path.join(tmp, 'out')
    const writer = ResultsWriter.open(out)
    const plan = buildPlan({ arms, workloads: ['matmul'], runs: 2, warmupRuns: 0, schedule: 'abba', seed: 1 })
    const env: Record<string, string | undefined> = {}
    const r = await executePlan(plan, {
      checkId: 'c',
      lanes,
      specFor: (_p, lane) => {
        const pin = nativeGpuEnv({ device: 'gpu', gpuAccess: 'gpus', gpus: 'all', driverMount: null }, lane)
        if (lane) env[lane.uuid!] = pin.CUDA_VISIBLE_DEVICES
        return { command: 'python3', args: [script], env: { ...process.env, ...pin }, timeoutMs: 20000 }
      },
      fingerprintFor: (_a, lane) => ({ gpu_uuid: lane?.uuid ?? null }) as Fingerprint,
      paramsFor: () => ({}),
      writer,
      logger: silentLogger
    })
    expect(r.complete).toBe(true)
    expect(r.runs.map(x => [x.environment, x.run, x.gpu])).toEqual([
      ['native', 1, 0],
      ['native', 2, 1],
      ['native#2', 1, 0],
      ['native#2', 2, 1],
      ['native#2', 3, 0],
      ['native#2', 4, 1],
      ['native', 3, 0],
      ['native', 4, 1]
    ])
    // Each slot's two processes overlapped in time.
    for (let i = 0; i < r.runs.length; i += 2) {
      const [a, b] = [r.runs[i]!, r.runs[i + 1]!]
      expect(Math.max(a.start_ms, b.start_ms)).toBeLessThan(Math.min(a.end_ms, b.end_ms))
    }
    for (const s of r.samples.filter(x => x.metric === 'kernel_ms'))
      expect(s.fingerprint.gpu_uuid).toBe(s.gpu === 0 ? 'GPU-a' : 'GPU-b')
    expect(env).toEqual({ 'GPU-a': 'GPU-a', 'GPU-b': 'GPU-b' })
    const csv = fs.readFileSync(writer.paths.samples, 'utf8').trim().split('\n')
    expect(csv[0]).toMatch(/,gpu,power_cap_w,stack,interleave$/)
    expect(csv.filter(l => l.startsWith('matmul,native,') && l.includes(',GPU-b,')).length).toBeGreaterThan(0)
  })

  it('stops the workload when one lane fails, naming the GPU', async () => {
    const writer = ResultsWriter.open(path.join(tmp, 'out-fail'))
    const plan = buildPlan({ arms, workloads: ['matmul'], runs: 2, warmupRuns: 0, schedule: 'abba', seed: 1 })
    const r = await executePlan(plan, {
      checkId: 'c',
      lanes,
      specFor: (_p, lane) =>
        lane?.index === 1
          ? { command: 'python3', args: ['-c', 'import sys; sys.exit(3)'], timeoutMs: 20000 }
          : { command: 'python3', args: [script], timeoutMs: 20000 },
      fingerprintFor: () => ({}) as Fingerprint,
      paramsFor: () => ({}),
      writer,
      logger: silentLogger
    })
    expect(r.complete).toBe(false)
    expect(r.runs).toHaveLength(2)
    expect(r.incompleteReason).toMatch(/matmul native run 1 on GPU 1 failed: exit code 3/)
  })
})

describe('executePlan in a duet', () => {
  const script = path.join(tmp, 'duet.py')
  fs.writeFileSync(
    script,
    [
      'import json, os, time',
      't0 = time.time()',
      'time.sleep(0.4)',
      'print(json.dumps({"event": "sample", "metric": "kernel_ms", "value": 10.0, "unit": "ms", "iteration": 1, "better": "lower"}), flush=True)',
      'print(json.dumps({"event": "summary", "t0": t0, "t1": time.time()}), flush=True)'
    ].join('\n')
  )
  const lanes: Lane[] = [0, 1, 2, 3].map(i => ({ index: i, uuid: `GPU-${i}`, name: 'X', minor: i }))
  const arms: Arm[] = [
    { label: 'native', kind: 'native', image: null },
    { label: 'native#2', kind: 'native', image: null }
  ]

  it('runs both arms of a block at once on GPU pairs, swapping GPUs every block, one run label per pair', async () => {
    const writer = ResultsWriter.open(path.join(tmp, 'out-duet'))
    const plan = buildPlan({ arms, workloads: ['matmul'], runs: 2, warmupRuns: 1, schedule: 'abba', seed: 1 })
    const blocks: number[] = []
    const r = await executePlan(plan, {
      checkId: 'c',
      lanes,
      layout: 'duet',
      specFor: () => ({ command: 'python3', args: [script], timeoutMs: 20000 }),
      fingerprintFor: (_a, lane) => ({ gpu_uuid: lane?.uuid ?? null }) as Fingerprint,
      paramsFor: () => ({}),
      afterBlock: d => {
        blocks.push(d.run)
        return null
      },
      writer,
      logger: silentLogger
    })
    expect(r.complete).toBe(true)
    const measured = r.runs.filter(x => !x.warmup)
    // Block 1: native on GPUs 0 and 2, native#2 on 1 and 3; block 2 swaps them. Pair m of block b is run (b−1)·2 + m + 1.
    const seen = measured
      .map(x => [x.environment, x.run, x.gpu])
      .sort((a, b) => String(a).localeCompare(String(b)))
    expect(seen).toEqual(
      [
        ['native', 1, 0],
        ['native', 2, 2],
        ['native', 3, 1],
        ['native', 4, 3],
        ['native#2', 1, 1],
        ['native#2', 2, 3],
        ['native#2', 3, 0],
        ['native#2', 4, 2]
      ].sort((a, b) => String(a).localeCompare(String(b)))
    )
    // A block's processes of both arms overlapped in time: one step, four GPUs, two arms.
    for (const run of [1, 2, 3, 4]) {
      const [a, b] = ['native', 'native#2'].map(e =>
        measured.find(x => x.environment === e && x.run === run)!
      )
      expect(Math.max(a!.start_ms, b!.start_ms)).toBeLessThan(Math.min(a!.end_ms, b!.end_ms))
    }
    // Each block adds one run per arm per GPU pair.
    expect(blocks).toEqual([2, 4])
    // The warm-up block ran as a duet too (both arms at once), before any measured run.
    const warm = r.runs.filter(x => x.warmup)
    expect(warm.map(x => x.environment).sort()).toEqual(['native', 'native', 'native#2', 'native#2'])
  })
})
