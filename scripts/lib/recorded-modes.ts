/**
 * Issue 52's replay of recorded GPU samples: the llm's per-request TPOT of five default checks recorded through the
 * action entry on one H100 (docs/evidence/2026-11-23-graph-prefill/h100-default-1..5, raw folders on the
 * evidence-raw branch), one list of requests per process, each divided by its check's native median process mean
 * (the checks' levels apart, the processes' own spread and request noise kept). A generator draws recorded
 * processes for both arms (with replacement) and puts a slow mode on top: ×factor on every request of a share of
 * one arm's processes, the same model as scripts/lib/defect-sims.ts's synthetic rows.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as zlib from 'node:zlib'
import { parse } from 'csv-parse/sync'
import { evidencePath } from './evidence-raw.js'
import type { Generator } from './defect-sims.js'

const FOLDERS = [1, 2, 3, 4, 5].map(i => `docs/evidence/2026-11-23-graph-prefill/h100-default-${i}`)
const BASE = 3

let cache: number[][] | null = null

/** Every recorded llm process's TPOT requests (both arms), scaled to its check's native level = BASE. */
export function recordedProcesses(): number[][] {
  if (cache !== null) return cache
  const out: number[][] = []
  for (const folder of FOLDERS) {
    const file = path.join(evidencePath(folder), 'samples.csv.gz')
    const rows = parse(zlib.gunzipSync(fs.readFileSync(file)), { columns: true }) as Record<string, string>[]
    const byRun = new Map<string, number[]>()
    for (const r of rows) {
      if (r.workload !== 'llm' || r.metric !== 'tpot_ms' || r.scope !== 'steady') continue
      const k = `${r.environment}\u0000${r.run}`
      byRun.set(k, [...(byRun.get(k) ?? []), Number(r.value)])
    }
    const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / v.length
    const native = [...byRun.entries()].filter(([k]) => k.startsWith('native\u0000')).map(([, v]) => mean(v))
    const sorted = [...native].sort((a, b) => a - b)
    const level = sorted[Math.floor(sorted.length / 2)]!
    for (const v of byRun.values()) out.push(v.map(x => (x / level) * BASE))
  }
  cache = out
  return out
}

/** A recorded process, drawn with replacement, times `factor` on every request. */
const draw = (rand: () => number, factor: number): number[] => {
  const all = recordedProcesses()
  return all[Math.floor(rand() * all.length)]!.map(x => x * factor)
}

/** T2 on recorded processes: `share` of the container's processes ×`factor`. */
export function recordedCandidateMode(share: number, factor: number): Generator {
  return {
    name: `recorded H100 llm TPOT, ${Math.round(share * 100)}% of container processes ×${factor}`,
    truthPct: share * (factor - 1) * 100,
    check: rand => () => ({ native: draw(rand, 1), container: draw(rand, rand() < share ? factor : 1) })
  }
}

/** T1 on recorded processes: 15% of native processes ×1.1, the container's mean +`pct`% above the native mean. */
export function recordedNativeMode(pct: number): Generator {
  const nativeMean = 1 + 0.15 * 0.1
  return {
    name: `recorded H100 llm TPOT, 15% of native processes ×1.1, candidate mean +${pct}%`,
    truthPct: pct,
    check: rand => () => ({
      native: draw(rand, rand() < 0.15 ? 1.1 : 1),
      container: draw(rand, nativeMean * (1 + pct / 100))
    })
  }
}

/** Clean recorded processes, the container's every request +`pct`%. */
export function recordedClean(pct: number): Generator {
  return {
    name: `recorded H100 llm TPOT, +${pct}%`,
    truthPct: pct,
    check: rand => () => ({ native: draw(rand, 1), container: draw(rand, 1 + pct / 100) })
  }
}
