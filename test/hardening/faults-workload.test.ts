/**
 * Faults inside the measured processes, through the real CLI and the real Docker engine: a container
 * OOM-killed, a workload printing garbage and exiting non-zero, a workload that hangs (natively and in
 * a container), and a SIGINT cancel. Each ends with an INCOMPLETE report and keeps every sample
 * measured before the fault.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { spawnSync } from 'node:child_process'
import { ensurePythonImage } from '../helpers/docker-image.js'
import {
  CLI,
  FAST,
  alive,
  checkContainers,
  cli,
  expectIncomplete,
  expectKeptBeforeFault,
  faultyWorkloads,
  readRuns,
  readSummary,
  startNode,
  waitFor,
  workspace
} from './helpers.js'

let image = ''
beforeAll(async () => {
  image = await ensurePythonImage()
}, 600_000)

describe('workload faults (real CLI, real Docker)', () => {
  it('container OOM-killed under container-memory: run failed "out of memory or killed", native kept', () => {
    const ws = workspace('oom')
    // 768² fp32 rotates 8 input pairs (~38 MiB) beside Python and NumPy (~30 MiB): over 48m, yet ~11 s
    // natively with the reference BLAS that CI selects (1536² took 124 s there and ran into the CLI's timeout).
    const args = [...FAST, '--matmul-size', '768', '--container-memory', '48m']
    const r = cli(['run', ...args, '--image', image, '--out', 'out'], ws)
    const out = path.join(ws, 'out')
    expect(r.code).toBe(2)
    expect(r.stdout).toMatch(/INCOMPLETE.*out of memory or killed/)
    const failed = readRuns(out).find(x => x.status !== 'ok')
    expect(failed).toMatchObject({ environment: 'container', run: 1, exit_code: 137, status: 'failed' })
    expect(failed?.error).toMatch(/out of memory or killed/)
    const summary = expectIncomplete(out, /container run 1 failed: exit code 137 \(out of memory or killed\)/)
    expect(expectKeptBeforeFault(out, r.stderr)).toBe(1) // native run 1
    expect(checkContainers(summary.check_id)).toEqual([])
  })

  it('a native workload printing non-JSON and exiting 3: reported with its output, earlier runs kept', () => {
    const ws = workspace('garbage')
    const bad = faultyWorkloads({ native: 'garbage', nativeGood: 1 })
    // ABBA: native 1 (good), container 1, container 2, native 2 (garbage).
    const r = cli(['run', ...FAST, '--image', image, '--out', 'out'], ws, {
      ...process.env,
      GPU_OVERHEAD_WORKLOADS: bad.dir
    })
    const out = path.join(ws, 'out')
    expect(r.code).toBe(2)
    const failed = readRuns(out).find(x => x.status !== 'ok')
    expect(failed).toMatchObject({ environment: 'native', run: 2, exit_code: 3, status: 'failed' })
    expect(failed?.error).toMatch(/^exit code 3.*Traceback\? no: this line is not JSON/)
    expectIncomplete(out, /native run 2 failed: exit code 3/)
    expect(expectKeptBeforeFault(out, r.stderr)).toBe(3)
  })

  it('a hung native workload: killed with its process tree at run-timeout', () => {
    const ws = workspace('hang-native')
    const bad = faultyWorkloads({ native: 'hang', nativeGood: 1 })
    const t0 = Date.now()
    // Prestart off: the held next process would be a third and fourth PID in this count.
    const r = cli(
      [
        'run',
        ...FAST,
        '--arms',
        'native,native',
        '--prestart',
        'false',
        '--run-timeout',
        '5',
        '--out',
        'out'
      ],
      ws,
      {
        ...process.env,
        GPU_OVERHEAD_WORKLOADS: bad.dir
      }
    )
    expect(Date.now() - t0).toBeLessThan(30_000)
    const out = path.join(ws, 'out')
    expect(r.code).toBe(2)
    const hung = readRuns(out).find(x => x.status !== 'ok')
    expect(hung).toMatchObject({ environment: 'native#2', run: 1, status: 'timeout' })
    expect(hung?.error).toMatch(/timed out \(killed with its process tree/)
    expectIncomplete(out, /native#2 run 1 failed: timed out/)
    expect(expectKeptBeforeFault(out, r.stderr)).toBe(1)
    // The workload and the child it started are both gone.
    const pids = fs.readFileSync(bad.pids, 'utf8').trim().split(/\s+/).map(Number)
    expect(pids).toHaveLength(2)
    for (const pid of pids) expect(alive(pid)).toBe(false)
  })

  it('a hung container: started locked down (inspected live), killed at run-timeout, gone afterwards', async () => {
    const ws = workspace('hang-container')
    const bad = faultyWorkloads({ container: 'hang' })
    const run = startNode(
      CLI,
      ['run', ...FAST, '--image', image, '--run-timeout', '5', '--container-memory', '256m', '--out', 'out'],
      ws,
      { ...process.env, GPU_OVERHEAD_WORKLOADS: bad.dir }
    )
    const out = path.join(ws, 'out')
    // The placeholder summary.json names the check from the start; its container carries that label.
    let checkId = ''
    await waitFor('the placeholder summary', () => {
      try {
        checkId = readSummary(out).check_id
        return true
      } catch {
        return false
      }
    })
    let ids: string[] = []
    // The workload's container, not preflight's probes (which carry the check's label too).
    await waitFor('the hanging container', () => (ids = checkContainers(checkId, 'workload')).length > 0)
    const inspect = spawnSync('docker', ['inspect', ids[0]!], { encoding: 'utf8' })
    const [c] = JSON.parse(inspect.stdout) as {
      Path: string
      Args: string[]
      HostConfig: {
        NetworkMode: string
        Privileged: boolean
        SecurityOpt: string[] | null
        Memory: number
        MemorySwap: number
        CapAdd: string[] | null
        AutoRemove: boolean
      }
      Mounts: { Destination: string; RW: boolean }[]
    }[]
    expect(c!.HostConfig.NetworkMode).toBe('none')
    expect(c!.HostConfig.Privileged).toBe(false)
    expect(c!.HostConfig.CapAdd ?? []).toEqual([])
    expect(c!.HostConfig.SecurityOpt).toContain('no-new-privileges')
    expect(c!.HostConfig.AutoRemove).toBe(true)
    expect(c!.HostConfig.Memory).toBe(256 * 1024 * 1024)
    expect(c!.HostConfig.MemorySwap).toBe(256 * 1024 * 1024)
    expect(c!.Mounts.find(m => m.Destination === '/gpu-overhead/workloads')?.RW).toBe(false)
    // Exec form: python3 runs the script directly, no shell in between.
    expect(c!.Path).toBe('python3')
    expect(c!.Args[0]).toBe('/gpu-overhead/workloads/matmul.py')

    const r = await run.done
    expect(r.code).toBe(2)
    const hung = readRuns(out).find(x => x.status !== 'ok')
    expect(hung).toMatchObject({ environment: 'container', run: 1, status: 'timeout' })
    expectIncomplete(out, /container run 1 failed: timed out/)
    expect(expectKeptBeforeFault(out, r.stderr)).toBe(1)
    expect(checkContainers(checkId)).toEqual([])
  }, 120_000)

  it('SIGINT (the Actions cancel) stops the check, keeps what was measured, leaves no container', async () => {
    const ws = workspace('sigint')
    const args = ['run', ...FAST, '--runs', '40', '--image', image, '--out', 'out']
    const run = startNode(CLI, args, ws)
    await waitFor('three measured runs', () => (run.output().stderr.match(/run \d+: ok/g) ?? []).length >= 3)
    run.child.kill('SIGINT')
    const r = await run.done
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/received SIGINT: stopping the check/)
    const out = path.join(ws, 'out')
    const summary = expectIncomplete(out, /cancelled/)
    expect(expectKeptBeforeFault(out, r.stderr)).toBeGreaterThanOrEqual(3)
    expect(readRuns(out).length).toBeLessThan(80)
    expect(checkContainers(summary.check_id)).toEqual([])
  }, 120_000)
})
