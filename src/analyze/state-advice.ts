/**
 * What to do about a metric whose processes fell into distinct levels, by whether they took turns. On H100, LLM
 * decode runs ~10% faster while another process's kernels run on the same GPU, at the same clocks
 * (docs/evidence/2026-11-27-decode-state.md): a process that measures alone, or beside a neighbour's job, falls
 * into either level, and processes measuring at the same time on different GPUs (the duet) do not share it (3 of
 * 8 duet blocks far off, 2026-11-27-layouts-final). Turns put every process in one state, so levels under turns
 * point at something else on the GPUs. The advice once sent readers to the duet; the evidence says the opposite.
 * A check measured on the CPU (or result files whose device no fingerprint names) has no GPU state and no decode:
 * its advice speaks of the host alone.
 */
import { PROJECT_URL } from '../util/version.js'
import { setting } from '../util/setting-name.js'

/** The evidence page the advice cites, by URL (the user's repository has no docs/). */
export const DECODE_STATE_DOC = `${PROJECT_URL}/blob/main/docs/evidence/2026-11-27-decode-state.md`

/** Whether the arms' fingerprints name a GPU check: only then do the notes speak of GPUs and their states. */
export function onGpu(fingerprints?: Record<string, { device?: string | null } | undefined>): boolean {
  return Object.values(fingerprints ?? {}).some(f => f?.device === 'gpu')
}

/** One or two sentences: why the levels arose in this layout and what measures every process in one state. */
export function stateAdvice(tookTurns: boolean, gpu: boolean): string {
  if (!gpu)
    return tookTurns
      ? `Its processes took turns, so something else ran on this host for part of the check (another job's ` +
          `processes?): run it where no other job shares the machine.`
      : `Its processes measured without turns, each beside whatever else ran on the host at the time, so such ` +
          `processes fall into either level: run it where no other job shares the machine; more runs per arm ` +
          `decide it, or none may.`
  if (tookTurns)
    return (
      `Its processes took turns, which puts every LLM decode in one GPU state (${DECODE_STATE_DOC}), so ` +
      `something else ran on these GPUs for part of the check (another job's processes?): run it where no ` +
      `other job shares its GPUs.`
    )
  return (
    `Its processes measured without turns, each alone on its GPU or beside whatever else ran there: LLM decode ` +
    `runs ~10% faster while another process's kernels run on the same GPU (${DECODE_STATE_DOC}), so such ` +
    `processes fall into either level, and the arms measuring side by side on two GPUs (the duet) do not share ` +
    `it. For the built-in llm, ${setting('turns', 'true')} (the default) measures every process in one state; without turns ` +
    `more runs per arm decide it, or none may.`
  )
}

/** Whether a series' runs took turns (ArmSeries.turns: a run's values per turn, null for one that did not). */
export function tookTurns(series: { turns?: ReadonlyArray<unknown> }): boolean {
  return series.turns?.some(t => t !== null) ?? false
}
