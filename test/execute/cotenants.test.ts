/**
 * Co-tenant records on the runner side: the `peers` event is the image's word (validated, clipped,
 * secrets masked), the GPU probe says why it could not look, and an arm's lists merge by process.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  MAX_COTENANTS,
  MAX_CMDLINE_CHARS,
  gpuCotenantProbe,
  gpuCotenants,
  mergeCotenants,
  peersList,
  probeGpuCotenants
} from '../../src/execute/index.js'
import { computeAppsNamedArgs } from '../../src/tools/nvidia-smi.js'
import { clearSecrets, registerSecret } from '../../src/util/secrets.js'
import { recordedEvents } from '../helpers/recorded.js'

function peersOf(name: string): Record<string, unknown>[] {
  return recordedEvents(name).filter(e => e['event'] === 'peers')
}

describe('peersList: the workload’s peers event, recorded', () => {
  it('keeps the busy co-tenants with their CPU and the masked command line', () => {
    const [ev] = peersOf('cpu-container-cotenant-busy')
    const l = peersList(ev!)
    expect(l.scope).toBe('pid-namespace')
    expect(l.unavailable).toBeNull()
    expect(l.total).toBe(3)
    expect(l.processes.map(p => p.name)).toEqual(['python3', 'python3', 'python3'])
    expect(l.processes[0]!.cmdline).toContain('cotenant-busy API_TOKEN=***')
    expect(l.processes.every(p => p.cpu_pct !== null && p.uses_gpu === false)).toBe(true)
  })
})

describe('peersList: what a hostile image may write', () => {
  afterEach(() => clearSecrets())

  it('bounds the list and every string, drops bad entries, and masks registered secrets', () => {
    registerSecret('ghp_registeredsecretvalue123')
    const huge = 'x'.repeat(10_000)
    const l = peersList({
      event: 'peers',
      scope: 'pid-namespace',
      total: 1e12,
      processes: [
        {
          pid: 7,
          name: `evil\u0007\n${huge}`,
          cmdline: `run --x ghp_registeredsecretvalue123 ${huge}`,
          cpu_pct: 50
        },
        { pid: -1, name: 'negative' },
        { pid: 1.5, name: 'fraction' },
        'not an object',
        { pid: 8, name: 'nan', cpu_pct: Number.NaN, uses_gpu: 'yes' },
        ...Array.from({ length: 100 }, (_, i) => ({
          pid: 100 + i,
          name: 'many',
          cmdline: 'many',
          cpu_pct: 1
        }))
      ]
    })
    expect(l.processes.length).toBeLessThanOrEqual(MAX_COTENANTS)
    const [first, second] = l.processes
    expect([...first!.name].every(c => c.charCodeAt(0) >= 32)).toBe(true)
    expect(first!.name.length).toBeLessThanOrEqual(40)
    expect(first!.cmdline!.length).toBeLessThanOrEqual(MAX_CMDLINE_CHARS + 1)
    expect(first!.cmdline).toContain('***')
    expect(first!.cmdline).not.toContain('ghp_registeredsecretvalue123')
    expect(second).toEqual({
      pid: 8,
      name: 'nan',
      cmdline: null,
      cpu_pct: null,
      gpu_mem_mib: null,
      uses_gpu: null
    })
    expect(l.processes.some(p => p.name === 'negative' || p.name === 'fraction')).toBe(false)
    // An absurd total is not believed: the count of what was kept stands.
    expect(l.total).toBe(l.processes.length)
  })

  it('passes on the reason when the workload could not read /proc, and refuses unknown scopes', () => {
    expect(
      peersList({ event: 'peers', scope: 'pid-namespace', unavailable: 'PermissionError: /proc' })
    ).toEqual({
      scope: 'pid-namespace',
      unavailable: 'PermissionError: /proc',
      total: 0,
      processes: []
    })
    expect(
      peersList({ event: 'peers', scope: 'host', processes: [{ pid: 1, name: 'x' }] }).unavailable
    ).toMatch(/unknown scope/)
  })
})

describe('the GPU probe', () => {
  it('on the CPU there is no GPU to share, and the list says so', async () => {
    const l = await gpuCotenantProbe('cpu')({} as never, 1)
    expect(l).toEqual({ scope: 'gpu', unavailable: 'device cpu: no GPU in use', total: 0, processes: [] })
  })

  it('without nvidia-smi (this machine) it says what is missing', async () => {
    const l = await probeGpuCotenants({ nvidiaSmi: 'nvidia-smi-not-installed', gpuUuid: 'GPU-x', ownPid: 1 })
    expect(l.unavailable).toBe('nvidia-smi-not-installed not found')
  })

  it('reads a recorded empty compute-apps list as no co-tenant', () => {
    const rec = fs.readFileSync(
      path.resolve('test/__fixtures__/nvidia-smi-2gpu/compute-apps-2gpu.csv'),
      'utf8'
    )
    expect(gpuCotenants({ csv: rec, gpuUuid: 'GPU-x', ownPid: 1 })).toEqual({
      scope: 'gpu',
      unavailable: null,
      total: 0,
      processes: []
    })
  })
})

/**
 * `compute-apps-named.csv`: the named query on the H200 host while a second CUDA process (host PID 681,
 * python3, 612 MiB) held the GPU. Its /proc is not on this machine, so a folder stands in for the host's
 * /proc whose `681` entry is a link to a real process here (this one): the kernel's own `status` and
 * `cmdline`, with the NSpid this process has in its namespace.
 */
describe('gpuCotenants: a recorded compute process on the H200', () => {
  const H200 = path.resolve('test/preflight/fixtures/nvidia-smi-h200')
  const REC_PID = 681
  // The GPU of the recording (its -q of the same run names this UUID) and the host's GPU of the day before.
  const REC_GPU = 'GPU-6a70d365-5ea1-6bbd-5421-703b9b9e0091'
  const OTHER_GPU = 'GPU-faafcc66-a40d-b2a9-3c4a-f026277663ea'
  const csv = fs.readFileSync(path.join(H200, 'compute-apps-named.csv'), 'utf8')
  const ownNsPid = Number(/^NSpid:.*?(\d+)\s*$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1])
  let proc: string

  beforeAll(() => {
    proc = fs.mkdtempSync(path.join(os.tmpdir(), 'cotenants-proc-'))
    fs.symlinkSync(`/proc/${process.pid}`, path.join(proc, String(REC_PID)))
  })
  afterAll(() => fs.rmSync(proc, { recursive: true, force: true }))

  it('was recorded with the very command the probe runs', () => {
    const cmd = fs.readFileSync(path.join(H200, 'compute-apps-named.csv.cmd'), 'utf8')
    expect(cmd).toBe(`$ nvidia-smi ${computeAppsNamedArgs().join(' ')}\nrc=0\n`)
    const help = fs.readFileSync(path.join(H200, 'help-query-compute-apps.txt'), 'utf8')
    for (const f of ['gpu_uuid', 'pid', 'process_name', 'used_memory']) expect(help).toContain(`"${f}"`)
  })

  it('names another process on the workload’s GPU with its PID and MiB', () => {
    const l = gpuCotenants({ csv, gpuUuid: REC_GPU, ownPid: ownNsPid + 1, proc })
    expect(l.unavailable).toBeNull()
    expect(l.total).toBe(1)
    expect(l.processes).toEqual([
      {
        pid: REC_PID,
        name: 'python3',
        cmdline: expect.stringContaining('jest'),
        cpu_pct: null,
        gpu_mem_mib: 612,
        uses_gpu: true
      }
    ])
  })

  it('attributes it to its own GPU only', () => {
    expect(gpuCotenants({ csv, gpuUuid: OTHER_GPU, ownPid: ownNsPid + 1, proc })).toEqual({
      scope: 'gpu',
      unavailable: null,
      total: 0,
      processes: []
    })
  })

  it('is not a co-tenant when it is the workload: by host PID (native) or its namespace PID (container)', () => {
    const none = { scope: 'gpu', unavailable: null, total: 0, processes: [] }
    expect(gpuCotenants({ csv, gpuUuid: REC_GPU, ownPid: REC_PID, proc })).toEqual(none)
    // The container arm saw its own PID as the innermost NSpid of host PID 681.
    expect(gpuCotenants({ csv, gpuUuid: REC_GPU, ownPid: ownNsPid, proc })).toEqual(none)
  })

  it('says it cannot tell when the process’s /proc is not readable or the workload’s PID is unknown', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cotenants-noproc-'))
    try {
      const l = gpuCotenants({ csv, gpuUuid: REC_GPU, ownPid: 1, proc: empty })
      expect(l.processes).toEqual([])
      expect(l.unavailable).toMatch(/GPU process 681: its \/proc status is not readable/)
    } finally {
      fs.rmSync(empty, { recursive: true, force: true })
    }
    expect(gpuCotenants({ csv, gpuUuid: REC_GPU, ownPid: null, proc }).unavailable).toMatch(/681/)
  })
})

describe('mergeCotenants: one list per scope for an arm', () => {
  it('merges the same process across runs (new PIDs) and keeps its busiest figures', () => {
    const [ev] = peersOf('cpu-container-cotenant-busy')
    const a = peersList(ev!)
    const b = { ...a, processes: a.processes.map(p => ({ ...p, pid: p.pid + 100, cpu_pct: 99 })) }
    const merged = mergeCotenants([
      a,
      b,
      { scope: 'gpu', unavailable: 'device cpu: no GPU in use', total: 0, processes: [] }
    ])
    const peers = merged.find(l => l.scope === 'pid-namespace')!
    expect(peers.processes).toHaveLength(1)
    expect(peers.processes[0]!.cpu_pct).toBe(99)
    expect(merged.find(l => l.scope === 'gpu')?.unavailable).toMatch(/no GPU/)
  })
})
