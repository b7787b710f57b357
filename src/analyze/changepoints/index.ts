/** Change-point detection over a series of per-check values (e-divisive means with a t-test, as Apache Otava). */
export { changePoints, detectInWindow } from './edivisive.js'
export {
  DEFAULT_MAX_P,
  DEFAULT_MIN_MAGNITUDE,
  DEFAULT_MIN_SEGMENT,
  DEFAULT_WINDOW,
  type ChangePoint,
  type ChangePointOptions,
  type Resume
} from './options.js'
export { bestSplit } from './qhat.js'
export { forwardChange, magnitude, splitTest } from './ttest.js'
