/**
 * The statistics engine's public face: descriptive statistics, Welch's t-test, Mann–Whitney U, bootstrap
 * and t-delta intervals of ratios, TOST equivalence, Holm correction, minimum detectable effect and
 * outlier flags. Pure functions over plain number arrays; no I/O.
 */
export { describe, medianSorted, outliers, variance } from './descriptive.js'
export { tInv } from './distributions.js'
export { minimumDetectableEffect, runsNeeded } from './detectable-effect.js'
export { mannWhitneyU } from './mann-whitney.js'
export { holm } from './multiplicity.js'
export {
  bootstrapRatios,
  ratioIntervals,
  tDeltaRatioInterval,
  type BootstrapOptions,
  type Interval
} from './ratio-intervals.js'
export { tost, welchTTest } from './welch-tests.js'
export {
  pairedTest,
  pairsToClear,
  pairsToDetect,
  blockMean,
  winsorizedSd,
  keptBlocks,
  OUTLYING_MADS,
  type PairedTest
} from './paired.js'
export { ratioInterval, ratioTest, type RatioBlocks, type RatioTest } from './ratio-of-means.js'
export { logRatioTest } from './log-ratio.js'
