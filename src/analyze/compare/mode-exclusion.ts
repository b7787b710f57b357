/**
 * Which slow modes an equivalence claim excludes (issue 52, T2). GPU processes fall into modes: a slow path
 * that a share f of the candidate's processes meet is absent from a check of n processes with probability
 * (1 − f)^n, and such a check holds A/A data, which the equivalence test rightly passes. No test of one check's
 * values sees a mode it did not draw; only the count of processes bounds it. So an equivalence claim needs
 * enough processes per arm that a mode met by MODE_SHARE of them would have shown in at least one with
 * probability 1 − MODE_LEVEL (a drawn ×1.1 process widens the interval past ±2%: simulated in
 * docs/error-rates.md), and every claim says the share it cannot exclude at its own count.
 */

import { setting } from '../../util/setting-name.js'

/** Share of the candidate's processes a slow mode may be met by and still be excluded by default: one in three. */
export const MODE_SHARE = 1 / 3

/** Chance a check misses every process of such a mode: the regression claim's one-sided level. */
export const MODE_LEVEL = 0.025

/** Processes per arm an equivalence claim needs to exclude a mode met by `share` of them (10 at 1/3). */
export function equivalenceBlocks(share = MODE_SHARE, level = MODE_LEVEL): number {
  return Math.ceil(Math.log(level) / Math.log(1 - share) - 1e-9)
}

/** The smallest share of processes a slow mode must have to show in n processes with probability 1 − level. */
export function excludedShare(n: number, level = MODE_LEVEL): number {
  return n < 1 ? 1 : 1 - level ** (1 / n)
}

/** "31% (1 in 3)": K rounded down, so a mode met by 1 in K is at least this share and the claim holds for it. */
function oneIn(share: number): string {
  return `${(share * 100).toFixed(0)}% (1 in ${Math.max(1, Math.floor(1 / share))})`
}

/** What an equivalence claim over n processes per arm excludes, and what it cannot. */
export function exclusionText(n: number, level = MODE_LEVEL): string {
  const f = excludedShare(n, level)
  return (
    `Over ${n} processes per arm this excludes a slow path met by ${oneIn(f)} of the candidate's processes or more ` +
    `(missed by all ${n} with probability ≤ ${(level * 100).toFixed(1)}%); a slow path met by fewer than ${oneIn(f)} ` +
    `cannot be excluded with ${n} processes (docs/error-rates.md, "Slow modes").`
  )
}

/** Why an equivalence within the margin is not claimed with fewer than equivalenceBlocks() processes. */
export function tooFewText(n: number, share = MODE_SHARE, level = MODE_LEVEL): string {
  const need = equivalenceBlocks(share, level)
  const miss = (1 - share) ** n
  return (
    `only ${n} processes per arm: a slow path met by ${oneIn(share)} of the candidate's processes is missed by all ` +
    `of them with probability ${(miss * 100).toFixed(1)}%, so equivalence needs ${need} processes per arm (${setting('max-runs')} ≥ ${need})`
  )
}
