/**
 * Co-tenant records on the runner side: the `peers` event is the image's word (validated, clipped,
 * secrets masked), the GPU probe says why it could not look, and an arm's lists merge by process.
 */
import * as fs from 'node:fs'
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
import { clearSecrets, registerSecret } from '../../src/util/secrets.js'

const STACKS = path.resolve('test/__fixtures__/stacks')

function peersOf(name: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(STACKS, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as Record<string, unknown>)
    .filter(e => e['event'] === 'peers')
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
