/**
 * The input parsers: each turns one raw string into a typed value or throws InputError naming the input
 * as the user wrote it (the action's input name, or the CLI's `--flag`). Config and the CLI share them,
 * so a value has the same bounds everywhere.
 */
import { Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { parseNumber } from '../util/number.js'
import { type Arm, type ContainerRuntime, type Device } from '../types/index.js'
import { findLauncher, launcherNames } from '../launchers/index.js'
import { validateImageRef, type ImageRef } from './image-ref.js'
import { DEFAULTS } from './defaults.js'
import { GATE_METRICS_ALLOWED, parseGateMetrics, type GateMetric } from './tail-metrics.js'
import { setting } from '../util/setting-name.js'

// ---- validators (each throws InputError naming the input) ----

/** A git branch name (a safe subset of git's rules); empty = no branch store. */
export function branchName(raw: string): string | null {
  const v = raw.trim()
  if (v === '') return null
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(v) || /\.\.|\/\/|\.lock$|\/$|@\{/.test(v))
    throw new InputError(
      Inputs.BaselineBranch,
      raw,
      'a branch name such as gpu-overhead-baseline, or empty for none'
    )
  return v
}

/** GitHub shows check names in one line and caps them; empty turns the check run off. */
const MAX_CHECK_NAME = 100
export function checkRunName(raw: string): string | null {
  const v = raw.trim()
  if (v === '') return null
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (v.length > MAX_CHECK_NAME || /[\0-\x1f]/.test(v))
    throw new InputError(
      Inputs.CheckRun,
      raw,
      `a one-line name of at most ${MAX_CHECK_NAME} characters, or empty for none`
    )
  return v
}

/**
 * One of `allowed`, matched without regard to case and returned as `allowed` spells it (`customSmallerIsBetter`
 * as action.yml and the README write it, or lower-cased, both give the canonical name).
 */
export function oneOf<T extends string>(input: string, raw: string, allowed: readonly T[]): T {
  const v = raw.trim().toLowerCase()
  const match = allowed.find(a => a.toLowerCase() === v)
  if (match === undefined) throw new InputError(input, raw, allowed.join(' | '))
  return match
}

/** Strict numbers (util/number.ts): no hex, no exponent or `5.0` where a whole number is meant. */
export function integer(input: string, raw: string, min: number, max: number): number {
  const n = parseNumber(raw, { kind: 'integer', min, max })
  if (!n.ok) throw new InputError(input, raw, `a whole number from ${min} to ${max} (digits only)`)
  return n.value
}

/** max-runs: at least runs; when not given, the default or runs, whichever is larger (a fixed count stays fixed). */
export function maxRunsOf(runs: number, raw: string | null): number {
  if (raw === null) return Math.max(runs, Number(DEFAULTS[Inputs.MaxRuns]))
  const max = integer(Inputs.MaxRuns, raw, 2, 1000)
  if (max < runs)
    throw new InputError(
      Inputs.MaxRuns,
      raw,
      `a whole number ≥ runs (${runs}); set both to the same value for a fixed count`
    )
  return max
}

/** time-budget: seconds (`150`, `150s`) or minutes (`2.5m`); 0 = no budget. */
export function timeBudget(raw: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m)?\s*$/i.exec(raw)
  if (!m)
    throw new InputError(Inputs.TimeBudget, raw, 'seconds (150 or 150s) or minutes (2.5m); 0 = no budget')
  const s = Number(m[1]) * (m[2]?.toLowerCase() === 'm' ? 60 : 1)
  if (s > 7 * 86400) throw new InputError(Inputs.TimeBudget, raw, 'at most 7 days')
  return s === 0 ? null : s
}

/** gate-metrics: the tail metrics that gate (config/tail-metrics.ts); the first bad entry is quoted. */
export function gateMetrics(input: string, raw: string): GateMetric[] {
  const parsed = parseGateMetrics(raw)
  if (!parsed.ok) throw new InputError(input, parsed.entry, GATE_METRICS_ALLOWED)
  return parsed.list
}

export function bool(input: string, raw: string): boolean {
  const v = raw.trim().toLowerCase()
  if (['true', 'yes', '1', 'on'].includes(v)) return true
  if (['false', 'no', '0', 'off'].includes(v)) return false
  throw new InputError(input, raw, 'true | false')
}

/**
 * `2%`, `2`, `0.5%` → percent. A bare number below 1 (`0.02`) is refused: it reads as a fraction (2%) but
 * would mean 0.02%, a limit no check can meet; a percent sign says which one is meant.
 */
export function percent(input: string, raw: string, max = 100): number {
  const text = raw.trim()
  const signed = /%$/.test(text)
  const n = parseNumber(text.replace(/\s*%$/, ''), { kind: 'real', min: 0, minExclusive: true, max })
  if (!n.ok) throw new InputError(input, raw, `a percentage above 0 and at most ${max}, e.g. 2%`)
  if (!signed && n.value < 1) {
    const asPct = Number((n.value * 100).toPrecision(12))
    throw new InputError(
      input,
      raw,
      `a percentage, e.g. 2%; ${text} looks like a fraction: write ${asPct}% (or ${text}% if you mean ${text} percent)`
    )
  }
  return n.value
}

export function fraction(input: string, raw: string, min: number, max: number): number {
  const n = parseNumber(raw, { kind: 'real', min, minExclusive: true, max })
  if (!n.ok) throw new InputError(input, raw, `a number above ${min} and at most ${max}, e.g. 0.05`)
  return n.value
}

/** max-overhead wherever it is given (action, file, any CLI command): a percent in (0, 100]. */
export const MAX_OVERHEAD_MAX = 100
/** alpha wherever it is given: a significance level in (0, 0.5]. */
export const ALPHA_MAX = 0.5

export function maxOverhead(input: string, raw: string): number {
  return percent(input, raw, MAX_OVERHEAD_MAX)
}

export function alpha(input: string, raw: string): number {
  return fraction(input, raw, 0, ALPHA_MAX)
}

/** An already-numeric max-overhead (library callers): the same bounds and wording as `maxOverhead`. */
export function checkMaxOverhead(input: string, value: number): number {
  if (!Number.isFinite(value) || !(value > 0) || value > MAX_OVERHEAD_MAX)
    throw new InputError(input, value, `a percentage above 0 and at most ${MAX_OVERHEAD_MAX}, e.g. 2%`)
  return value
}

/** An already-numeric alpha: the same bounds and wording as `alpha`. */
export function checkAlpha(input: string, value: number): number {
  if (!Number.isFinite(value) || !(value > 0) || value > ALPHA_MAX)
    throw new InputError(input, value, `a number above 0 and at most ${ALPHA_MAX}, e.g. 0.05`)
  return value
}

export function list(input: string, raw: string): string[] {
  const items = raw
    .split(/[,\n]/)
    .map(s => s.trim())
    .filter(s => s !== '')
  if (items.length === 0) throw new InputError(input, raw, 'a comma-separated, non-empty list')
  return items
}

export function parseArms(raw: string, image: string | null, runtime: ContainerRuntime = 'docker'): Arm[] {
  return parseArmsWithImages(raw, image === null ? null : validateImageRef(image, Inputs.Image), runtime).arms
}

/** What an arm may be, for error messages: the fixed words and every registered launcher. */
export function armForms(): string {
  const names = launcherNames().filter(n => n !== 'native')
  return `native | container | container:<image ref> | ${names.map(n => `${n} | ${n}:<image ref>`).join(' | ')}`
}

/**
 * The arms, and every image a container arm runs (unique, in arm order), each parsed once. An arm is
 * `native`, `container[:<image>]` (the container-runtime launcher) or `<launcher>[:<image>]` with a registered
 * launcher (src/launchers/), so two arms may run on two launchers: `docker:<A>,podman:<B>`.
 */
export function parseArmsWithImages(
  raw: string,
  image: ImageRef | null,
  runtime: ContainerRuntime = 'docker'
): { arms: Arm[]; images: ImageRef[] } {
  const specs = list(Inputs.Arms, raw)
  if (specs.length < 2) throw new InputError(Inputs.Arms, raw, `at least two of ${armForms()}`)
  const images = new Map<string, ImageRef>()
  const arms: Arm[] = specs.map(spec => {
    const colon = spec.indexOf(':')
    const word = colon < 0 ? spec : spec.slice(0, colon)
    const launcher = findLauncher(word === 'container' ? runtime : word)
    if (!launcher) throw new InputError(Inputs.Arms, spec, armForms())
    if (!launcher.runsImage) {
      if (colon >= 0) throw new InputError(Inputs.Arms, spec, `${word} runs no image: ${armForms()}`)
      return { label: word, kind: 'native', image: null, launcher: launcher.name }
    }
    if (colon < 0) {
      if (!image)
        throw new InputError(
          Inputs.Image,
          '',
          `an image reference (required when arms include \`${word}\`; pin it by digest)`
        )
      images.set(image.ref, image)
      return { label: word, kind: 'container', image: image.ref, launcher: launcher.name }
    }
    const parsed = validateImageRef(spec.slice(colon + 1), Inputs.Arms)
    if (!images.has(parsed.ref)) images.set(parsed.ref, parsed)
    return { label: `${word}:${parsed.ref}`, kind: 'container', image: parsed.ref, launcher: launcher.name }
  })
  // Unique labels: A/A calibration (native,native) becomes native and native#2.
  const seen = new Map<string, number>()
  for (const arm of arms) {
    const n = (seen.get(arm.label) ?? 0) + 1
    seen.set(arm.label, n)
    if (n > 1) arm.label = `${arm.label}#${n}`
  }
  return { arms, images: [...images.values()] }
}
export function given(v: string | undefined): v is string {
  return v !== undefined && v !== ''
}

/** Inputs whose empty value is a choice (`baseline-branch: ''`: no branch store; `check-run: ''`: none), not "use the default". */
const EMPTY_MEANS_NONE = new Set<string>([Inputs.BaselineBranch, Inputs.CheckRun])

/** The value `src` sets for `name`, if it sets one: non-empty, or empty where empty means none. */
export function chosen(src: Partial<Record<string, string>>, name: Inputs): string | undefined {
  const v = src[name]
  return v !== undefined && (v !== '' || EMPTY_MEANS_NONE.has(name)) ? v : undefined
}
const MEMORY_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }
/** Docker refuses smaller limits ("Minimum memory limit allowed is 6MB"). */
const MIN_CONTAINER_MEMORY = 6 * 1024 ** 2
/** 1 PiB: beyond any machine, and far inside what docker parses (int64 bytes). */
const MAX_CONTAINER_MEMORY = 1024 ** 5

/** Docker's memory size syntax, limited to what docker and podman both accept: `512m`, `8g`, `1.5g`. */
export function containerMemory(raw: string): string {
  const v = raw.trim().toLowerCase()
  const m = /^(\d{1,16}(?:\.\d{1,6})?)([kmg]?)$/.exec(v)
  const bytes = m?.[1] ? Number(m[1]) * (MEMORY_UNITS[m[2] ?? ''] ?? 1) : NaN
  if (!(bytes >= MIN_CONTAINER_MEMORY && bytes <= MAX_CONTAINER_MEMORY))
    throw new InputError(
      Inputs.ContainerMemory,
      raw,
      'a memory size of at least 6m and at most 1048576g (1 PiB): a number with an optional unit k, m or g, e.g. 8g or 512m (empty = no limit)'
    )
  return v
}

/** Watts, e.g. `400,550,700`: each once, plausible for a GPU board; only meaningful with device gpu. */
export function powerCaps(raw: string, device: Device): number[] {
  const allowed = 'a comma list of power limits in watts, e.g. 400,550,700 (each from 50 to 2000, each once)'
  const caps = list(Inputs.PowerCaps, raw).map(v => {
    const w = parseNumber(v, { kind: 'real', min: 50, max: 2000 })
    if (!w.ok) throw new InputError(Inputs.PowerCaps, v, allowed)
    return w.value
  })
  if (new Set(caps).size !== caps.length) throw new InputError(Inputs.PowerCaps, raw, allowed)
  if (device !== 'gpu')
    throw new InputError(Inputs.PowerCaps, raw, `empty with ${setting('device', 'cpu')} (caps need a GPU)`)
  return caps
}
