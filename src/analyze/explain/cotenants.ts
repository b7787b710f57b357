/**
 * Co-tenants in "Why the arms differ": a process that ran beside the workload in one arm only (another
 * compute process on its GPU, or another process in its container) competed for what the workload
 * measured. When it ran only in the slower arm it explains that arm's slowness better than any
 * configuration fact, so it ranks above them (impact 3, first kind). An idle one (no CPU over the
 * measured region, no GPU) is listed, not ranked. What the processes are comes from types/cotenants.ts.
 */
import type {
  ArmStack,
  CotenantList,
  CotenantProcess,
  Domain,
  Finding,
  MeasuredDifference
} from '../../types/index.js'
import { describeDifference } from './measured.js'

/** Shown for the arm where the process was not there. */
export const NONE = 'none'
/** CPU over the measured region (% of one core) from which a co-tenant without a GPU counts as busy. */
export const BUSY_CPU_PCT = 1

const GPU_DOMAINS: readonly Domain[] = ['gpu-compute', 'launch', 'memory']
const CPU_DOMAINS: readonly Domain[] = ['cpu-compute', 'launch', 'io']

const WHERE: Record<CotenantList['scope'], string> = {
  gpu: 'other compute process on the GPU',
  'pid-namespace': 'other process in the container'
}

function identity(p: CotenantProcess): string {
  return `${p.name}\u0000${p.cmdline ?? ''}`
}

function busy(p: CotenantProcess): boolean {
  return p.uses_gpu === true || (p.cpu_pct ?? 0) >= BUSY_CPU_PCT
}

/** `name (cmdline…), CPU x%, GPU y MiB` — what the report shows of a process (it escapes and redacts). */
export function describeProcess(p: CotenantProcess): string {
  // Already clipped (and masked) where it was recorded: execute/cotenants.ts.
  const cmd = p.cmdline ? ` (${p.cmdline})` : ''
  const use = [
    p.cpu_pct !== null ? `CPU ${p.cpu_pct.toFixed(1)}%` : null,
    p.gpu_mem_mib !== null ? `GPU ${p.gpu_mem_mib.toFixed(0)} MiB` : p.uses_gpu ? 'holds the GPU' : null
  ].filter(Boolean)
  return `${p.name}${cmd}${use.length ? `, ${use.join(', ')}` : ''}`
}

/** Every co-tenant an arm's processes saw, by scope and identity, with the workloads it was seen in. */
function seen(
  stacks: readonly ArmStack[],
  env: string
): Map<string, { scope: CotenantList['scope']; process: CotenantProcess; workloads: string[] }> {
  const out = new Map<
    string,
    { scope: CotenantList['scope']; process: CotenantProcess; workloads: string[] }
  >()
  for (const s of stacks.filter(x => x.environment === env))
    for (const list of s.cotenants ?? [])
      for (const p of list.processes) {
        const k = `${list.scope}\u0000${identity(p)}`
        const e = out.get(k)
        if (!e) out.set(k, { scope: list.scope, process: p, workloads: [s.workload] })
        else if (!e.workloads.includes(s.workload)) e.workloads.push(s.workload)
      }
  return out
}

function finding(
  scope: CotenantList['scope'],
  p: CotenantProcess,
  workloads: string[],
  inCandidate: boolean
): Finding {
  const gpu = scope === 'gpu' || p.uses_gpu === true
  const here = describeProcess(p)
  return {
    kind: 'cotenant',
    key: `cotenant:${scope}:${p.name}:${p.cmdline ?? ''}`,
    label: `${WHERE[scope]}: ${p.name}`,
    baseline: inCandidate ? NONE : here,
    candidate: inCandidate ? here : NONE,
    impact: busy(p) ? 3 : 1,
    domains: [...(gpu ? GPU_DOMAINS : CPU_DOMAINS)],
    explains: [],
    workloads,
    meaning: gpu
      ? 'another process held the same GPU while the workload measured: the GPU time-slices between them, so the difference is the neighbour, not the container; its kernels also put launch-bound work (LLM decode) in a ~10% faster state, so a decode that came out faster beside it is the GPU state, not the container (with turns, the default, both arms measure in that state)'
      : 'another process ran beside the workload and took CPU time it measured: the difference is the neighbour, not the container',
    fix: 'stop the image (entrypoint, init script) or the host from starting it, or measure where nothing else runs; compare again',
    relevant: false
  }
}

/** Co-tenants present in one arm only (the other arm had none like it). */
export function cotenantFindings(
  stacks: readonly ArmStack[],
  baselineEnv: string,
  candidateEnv: string
): Finding[] {
  const base = seen(stacks, baselineEnv)
  const cand = seen(stacks, candidateEnv)
  const out: Finding[] = []
  for (const [k, e] of cand) if (!base.has(k)) out.push(finding(e.scope, e.process, e.workloads, true))
  for (const [k, e] of base) if (!cand.has(k)) out.push(finding(e.scope, e.process, e.workloads, false))
  return out
}

/**
 * The measured differences a co-tenant can explain: in its domains and workloads, where the arm it ran in
 * came out slower (overhead > 0: the candidate is worse; < 0: the baseline is). A process on the GPU also
 * explains a launch-bound metric (LLM decode) that came out faster in its arm: another process's kernels on
 * the GPU put such work in a ~10% faster state at the same clocks (docs/evidence/2026-11-27-decode-state.md).
 */
export function cotenantExplains(f: Finding, measured: readonly MeasuredDifference[]): string[] {
  if (f.impact === 0) return []
  const slower = f.baseline === NONE ? 1 : -1
  const onGpu = f.domains.includes('gpu-compute')
  return measured
    .filter(
      m =>
        (Math.sign(m.overhead_pct) === slower ||
          (onGpu && Math.sign(m.overhead_pct) === -slower && m.domains.includes('launch'))) &&
        m.domains.some(d => f.domains.includes(d)) &&
        f.workloads.includes(m.workload)
    )
    .map(describeDifference)
}
