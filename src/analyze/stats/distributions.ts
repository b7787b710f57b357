/**
 * Student's t for the Welch tests and intervals. Distribution functions come from jstat: nothing here
 * re-implements a special function.
 */
import jStat from 'jstat'
import { mean } from 'simple-statistics'
import { variance } from './descriptive.js'

/** P(T <= x) for Student's t with `df` degrees of freedom (df may be fractional, as Welch's is). */
export function tCdf(x: number, df: number): number {
  return jStat.studentt.cdf(x, df)
}

/** Quantile of Student's t. */
export function tInv(p: number, df: number): number {
  return jStat.studentt.inv(p, df)
}

/** Two-sided p of a t statistic; computed from the lower tail so tiny p keep their precision. */
export function twoSidedT(t: number, df: number): number {
  return Math.min(1, 2 * tCdf(-Math.abs(t), df))
}

/** Welch–Satterthwaite degrees of freedom for the variance terms a = s1²/n1 and b = s2²/n2. */
export function welchDf(a: number, n1: number, b: number, n2: number): number {
  return (a + b) ** 2 / (a ** 2 / (n1 - 1) + b ** 2 / (n2 - 1))
}

/** The terms of a Welch statistic on mean(x) − mean(y): s²/n of each arm and the difference of means. */
export interface WelchTerms {
  nx: number
  ny: number
  a: number
  b: number
  diff: number
}

/** Welch's terms, or null with fewer than 2 values in an arm (no spread is measurable). */
export function welchTerms(x: readonly number[], y: readonly number[]): WelchTerms | null {
  const nx = x.length
  const ny = y.length
  if (nx < 2 || ny < 2) return null
  return { nx, ny, a: variance(x) / nx, b: variance(y) / ny, diff: mean(x) - mean(y) }
}
