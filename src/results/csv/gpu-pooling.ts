/**
 * A results CSV whose runs name their GPU (samples.csv of a check on several GPUs, a duet) is pooled as the
 * check pooled its rows (multi-gpu.ts pooledRows: each GPU a block, its offset scaled out, arm by arm), so
 * `analyze` on the file gives the check's answer; the runs keep their GPU, so a duet's blocks keep their GPU
 * strata (compare/pairs.ts). The GPU UUID differs between the GPUs by design and is not a fingerprint
 * difference there (the check drops it too); model, driver and image still must match.
 */
import { blockFactors } from '../blocking.js'
import type { RunAggregator } from '../run-values/index.js'

/** Scale the run groups of each GPU by its block factor; the factors are blockScaled's (results/blocking.ts). */
export function poolGpus(agg: RunAggregator): void {
  const factors = blockFactors(agg.gpuCells())
  if (factors.size > 0) agg.scaleGpus((key, gpu) => factors.get(`${key}\u0000${gpu}`))
}
