/** Types the explainer tests share. */
export type { Analysis, ArmStack, Comparison } from '../../src/types/index.js'
export type { RawRow as RawRowLike } from '../../src/results/index.js'
