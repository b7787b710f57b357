/**
 * Flattens two recorded stacks to `a.b.c` keys and lists what differs. Lists of library files are
 * compared by file name (the same library sits under /lib or /usr/lib depending on the root file
 * system's layout); environment variables are compared separately, by name.
 */
import type { ArmStack, CotenantList } from '../../types/index.js'
import { appendAll } from '../../util/arrays.js'
import { first } from '../../util/must.js'
import { mergeCotenants } from '../cotenants.js'

export type Flat = Map<string, string>

const MAX_DEPTH = 6
const MAX_KEYS = 2000 // bounded: a stack event is written by our own code, but a tree can be hostile

function scalar(v: unknown): string {
  if (v === null || v === undefined) return '∅'
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return JSON.stringify(v)
}

/**
 * A shared object's identity: its file name without directory and without the version after `.so`
 * (`/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0` and an image's copy named `libblas.so.3` are one
 * library). Versions are compared where the library reports them (torch.cuda.*, numpy.blas.config).
 */
function baseName(p: string): string {
  const i = p.lastIndexOf('/')
  const file = i >= 0 ? p.slice(i + 1) : p
  const so = file.indexOf('.so')
  return so > 0 ? file.slice(0, so + 3) : file
}

/** `{torch: {cuda: {cudnn: 91002}}}` → `torch.cuda.cudnn = 91002`; `libraries.*` lists → sorted file names. */
export function flatten(facts: Record<string, unknown>): Flat {
  const out: Flat = new Map()
  const walk = (prefix: string, v: unknown, depth: number): void => {
    if (out.size >= MAX_KEYS) return
    if (Array.isArray(v)) {
      const items = v.map(x =>
        typeof x === 'string' && prefix.startsWith('libraries.') ? baseName(x) : scalar(x)
      )
      out.set(prefix, [...new Set(items)].sort().join(', '))
      return
    }
    if (v !== null && typeof v === 'object' && depth < MAX_DEPTH) {
      for (const [k, child] of Object.entries(v as Record<string, unknown>))
        walk(prefix ? `${prefix}.${k}` : k, child, depth + 1)
      return
    }
    // A library's directory depends on the root file system's layout; its file name is its identity.
    out.set(prefix, typeof v === 'string' && prefix.endsWith('.library') ? baseName(v) : scalar(v))
  }
  walk('', facts, 0)
  return out
}

export interface FactDiff {
  key: string
  baseline: string | null
  candidate: string | null
}

/** Keys whose values differ (a key one side lacks counts, with null on that side). */
export function diffFlat(a: Flat, b: Flat): FactDiff[] {
  const keys = new Set([...a.keys(), ...b.keys()])
  const out: FactDiff[] = []
  for (const key of [...keys].sort()) {
    const x = a.get(key) ?? null
    const y = b.get(key) ?? null
    if (x !== y) out.push({ key, baseline: x, candidate: y })
  }
  return out
}

/** Environment variables of a stack (`env` object), as name → value. */
export function envOf(facts: Record<string, unknown>): Map<string, string> {
  const env = facts['env']
  const out = new Map<string, string>()
  if (env && typeof env === 'object' && !Array.isArray(env)) {
    for (const [k, v] of Object.entries(env as Record<string, unknown>)) out.set(k, scalar(v))
  }
  return out
}

/** Keys whose values differ between the processes of one arm (the first process is the reference). */
export function varyingKeys(stacks: readonly Record<string, unknown>[]): string[] {
  if (stacks.length < 2) return []
  const [reference, ...rest] = stacks
  if (reference === undefined) return []
  const base = flatten(reference)
  const varies = new Set<string>()
  for (const s of rest) for (const d of diffFlat(base, flatten(s))) varies.add(d.key)
  return [...varies].sort()
}

/** One ArmStack per (environment, workload) from the stacks its measured processes recorded, in run order. */
export function armStacks(
  recorded: readonly {
    environment: string
    workload: string
    run?: number
    facts: Record<string, unknown>
    cotenants?: readonly CotenantList[]
  }[]
): ArmStack[] {
  const groups = new Map<
    string,
    { environment: string; workload: string; list: Record<string, unknown>[]; cotenants: CotenantList[] }
  >()
  for (const r of recorded) {
    const k = JSON.stringify([r.environment, r.workload])
    const g = groups.get(k) ?? { environment: r.environment, workload: r.workload, list: [], cotenants: [] }
    g.list.push(r.facts)
    appendAll(g.cotenants, r.cotenants ?? [])
    groups.set(k, g)
  }
  return [...groups.values()].map(g => ({
    environment: g.environment,
    workload: g.workload,
    processes: g.list.length,
    facts: first(g.list),
    varies: varyingKeys(g.list),
    ...(g.cotenants.length ? { cotenants: mergeCotenants(g.cotenants) } : {})
  }))
}
