/** Rows of checks whose blocks took turns request by request (test/analyze/turns.test.ts, test/entry). */
import type { SampleRecord } from '../../src/types/index.js'
import { noise } from './helpers.js'

/** The LLM's two TPOT levels on a shared host, ms. */
export const LOW = 2.84
export const HIGH = 3.17

/** Native flips after 3 of 6 requests; the container's k-th request runs just after, so it flips one pair later. */
export const NATIVE = [LOW, LOW, LOW, HIGH, HIGH, HIGH]
export const CONTAINER = [LOW, LOW, LOW, LOW, HIGH, HIGH].map(v => v * 1.005)

/** One process's rows: its values by iteration (1-based), taking turns or not. */
export function rows(environment: string, run: number, values: number[], turns: boolean): SampleRecord[] {
  return values.map(
    (value, k) =>
      ({
        check_id: 'c',
        workload: 'llm',
        environment,
        run,
        iteration: k + 1,
        metric: 'tpot_ms',
        value,
        unit: 'ms',
        better: 'lower',
        scope: 'steady',
        time: '2026-11-27T00:00:00.000Z',
        params: {},
        fingerprint: { gpu_name: 'NVIDIA H100' },
        ...(turns ? { interleave: 'turns' as const } : {})
      }) as SampleRecord
  )
}

/**
 * A check of 10 turns blocks, +0.5% overhead, 0.2% noise per request; the host's state flips in the middle of
 * every other block (native one pair before the container).
 */
export function flippingCheck(turns: boolean): SampleRecord[] {
  const out: SampleRecord[] = []
  for (let run = 1; run <= 10; run++) {
    const [from, to] = run % 4 === 1 ? [LOW, HIGH] : run % 4 === 3 ? [HIGH, LOW] : [LOW, LOW]
    const level = (k: number, flipAt: number): number => (k < flipAt ? from : to)
    const eb = noise(run, 6, 0, 0.002)
    const ec = noise(100 + run, 6, 0, 0.002)
    const native = eb.map((e, k) => level(k, 3) * (1 + e))
    const container = ec.map((e, k) => level(k, 4) * 1.005 * (1 + e))
    out.push(...rows('native', run, native, turns), ...rows('container', run, container, turns))
  }
  return out
}
