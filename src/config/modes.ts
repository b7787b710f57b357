/** Which mode the action runs in, and the gate limits every statistical mode reads the same way. */
import { Inputs } from '../types/inputs.js'
import { MODES, ON_INCONCLUSIVE, type Mode, type OnInconclusive } from '../types/index.js'
import { DEFAULTS, type RawInputs } from './defaults.js'
import { alpha, bool, maxOverhead, oneOf } from './parse.js'
import type { InputReader, Label } from './reader.js'

/** Which mode the action runs in (the CLI has a command per mode). */
export function modeOf(inputs: RawInputs): Mode {
  return oneOf(Inputs.Mode, inputs[Inputs.Mode] || DEFAULTS[Inputs.Mode], MODES)
}

/** max-overhead, alpha, fail-on-regression and on-inconclusive: how analyze and aggregate judge, on either surface. */
export interface GateLimits {
  maxOverheadPct: number
  alpha: number
  failOnRegression: boolean
  onInconclusive: OnInconclusive
}

export function maxOverheadOf(read: InputReader, label: Label): number {
  return maxOverhead(label(Inputs.MaxOverhead), read.get(Inputs.MaxOverhead))
}

export function alphaOf(read: InputReader, label: Label): number {
  return alpha(label(Inputs.Alpha), read.get(Inputs.Alpha))
}

export function onInconclusiveOf(read: InputReader, label: Label): OnInconclusive {
  return oneOf(label(Inputs.OnInconclusive), read.get(Inputs.OnInconclusive), ON_INCONCLUSIVE)
}

/** fail-on-regression: a CLI command without the flag takes its default (true: a regression exits 1). */
export function failOnRegressionOf(read: InputReader, label: Label): boolean {
  return bool(label(Inputs.FailOnRegression), read.get(Inputs.FailOnRegression))
}
