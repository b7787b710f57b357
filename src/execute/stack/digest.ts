/**
 * A short identity of a recorded stack for fingerprints: two processes with the same digest ran the
 * same interpreter, libraries, BLAS, precision flags, CPU allotment and performance-relevant
 * environment. Facts that change between processes of one stack (the JIT cache filling up) and
 * declarative variables (CUDA_VERSION labels) are left out, so equal stacks always get equal digests.
 */
import { createHash } from 'node:crypto'
import { first } from '../../util/must.js'
import { flatten } from './flatten.js'
import { envKnowledge } from './env-knowledge.js'
import { FACT_RULES } from './fact-rules.js'

export const STACK_DIGEST_PREFIX = 'stack:'
const DIGEST_HEX = 16
/**
 * Facts the digest leaves out; the explainer still shows them: those that drift within one stack, and the
 * cgroup limits in effect, recorded after stored baselines were keyed (the mount's own cgroup files stay in).
 */
const NOT_IN_DIGEST = /^torch\.cuda\.jit_cache\.|^cpu\.(cpu|memory)_limit$/

export function stackIdentity(facts: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = []
  for (const [key, value] of flatten(facts)) {
    if (NOT_IN_DIGEST.test(key)) continue
    if (key.startsWith('env.')) {
      if (envKnowledge(key.slice(4)).impact > 0) out.push([key, value])
      continue
    }
    if (FACT_RULES.find(r => r.pattern.test(key))?.ignore) continue
    out.push([key, value])
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

export function stackDigest(facts: Record<string, unknown>): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(stackIdentity(facts)))
    .digest('hex')
  return STACK_DIGEST_PREFIX + hash.slice(0, DIGEST_HEX)
}

/**
 * One digest per arm for its fingerprint: the stacks of all its workloads (io imports no torch, so
 * its stack differs from matmul's), each workload's first measured process. Null before any ran.
 */
export function armStackDigest(
  runs: readonly { environment: string; workload: string; warmup: boolean; stack?: string | null }[],
  environment: string
): string | null {
  const byWorkload = new Map<string, string>()
  for (const r of runs)
    if (r.environment === environment && !r.warmup && r.stack && !byWorkload.has(r.workload))
      byWorkload.set(r.workload, r.stack)
  if (byWorkload.size === 0) return null
  if (byWorkload.size === 1) return first([...byWorkload.values()])
  const joined = [...byWorkload.entries()]
    .sort()
    .map(([w, d]) => `${w}=${d}`)
    .join(';')
  return STACK_DIGEST_PREFIX + createHash('sha256').update(joined).digest('hex').slice(0, DIGEST_HEX)
}
