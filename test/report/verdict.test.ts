import type { CheckSummary } from '../../src/types/index.js'
import { decideFailure, verdictLine } from '../../src/report/verdict.js'
import {
  SUMMARIES,
  gateFailed,
  incomparable,
  incomplete,
  inconclusive,
  pass,
  regression
} from '../__fixtures__/summaries/index.js'

describe('decideFailure', () => {
  test('never fails without fail-on-regression', () => {
    for (const s of Object.values(SUMMARIES)) expect(decideFailure(s, false)).toBeNull()
  })
  test('a regression fails with a one-line reason naming the metric and the limit', () => {
    const reason = decideFailure(regression, true)
    expect(reason).toMatch(
      /^overhead regression: matmul kernel_ms \+3\.\d\d% \[\+2\.60, \+3\.50\] over the 2% limit/
    )
    expect(reason).not.toContain('\n')
  })
  test('a failed preflight gate fails', () => {
    expect(decideFailure(gateFailed, true)).toMatch(/^preflight failed: driver-gate: host driver 550\.54\.15/)
  })
  test('pass, inconclusive, incomparable and incomplete-without-regression do not fail', () => {
    for (const s of [pass, inconclusive, incomparable, incomplete]) expect(decideFailure(s, true)).toBeNull()
  })
  test('a preflight warning does not fail; a failed I/O rule does', () => {
    const warned: CheckSummary = {
      ...pass,
      preflight: [{ name: 'mounts', status: 'warn', message: 'w', fix: null }]
    }
    expect(decideFailure(warned, true)).toBeNull()
    const failed: CheckSummary = {
      ...pass,
      preflight: [
        { name: 'mounts', status: 'fail', message: 'data on the writable layer', fix: 'bind-mount it' }
      ]
    }
    expect(decideFailure(failed, true)).toBe('preflight failed: mounts: data on the writable layer')
  })
  test('regression and failed gate together give both reasons', () => {
    const both: CheckSummary = { ...regression, preflight: gateFailed.preflight }
    expect(decideFailure(both, true)).toMatch(/^overhead regression: .*; preflight failed: driver-gate: /)
  })
})

describe('verdictLine with an improvement', () => {
  test('a PASS with a metric improved beyond the limit does not say "within ±2% on all"', () => {
    const comparisons = pass.analysis!.comparisons.map((c, i) =>
      i === 0 && c.scope === 'steady'
        ? { ...c, verdict: 'improvement' as const, overhead_pct: -39.9, ci95: { low: -41, high: -38.5 } }
        : c
    )
    const improved: CheckSummary = { ...pass, analysis: { ...pass.analysis!, comparisons } }
    const line = verdictLine(improved, null)
    expect(line).toMatch(
      /^\*\*PASS\*\* — no significant container overhead vs native above 2% on \d+ gated metrics; 1 improvement beyond −2% \(\S+ \S+ −?-?39\.9/
    )
    expect(line).not.toContain('within ±2% on all')
  })
})
