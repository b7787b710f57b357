/** Change-point detection over a series of per-check values (e-divisive means with a t-test, as Apache Otava). */
export {
  changePoints,
  detectInWindow,
  firstPassP,
  DEFAULT_MAX_P,
  DEFAULT_MIN_MAGNITUDE,
  DEFAULT_MIN_SEGMENT,
  DEFAULT_WINDOW,
  type ChangePoint,
  type ChangePointOptions,
  type ChangePointResult,
  type Resume
} from './edivisive.js'
export { bestSplit, nextCandidate } from './qhat.js'
export { forwardChange, magnitude, splitTest, type SplitStats } from './ttest.js'
