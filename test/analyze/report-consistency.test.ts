/**
 * Issue 51's consistency check, fast: generated checks of each kind (fixed, sequential, noisy CPU, unbounded)
 * rendered as a reader meets them and read back from the text (scripts/lib/report-consistency.ts). The full run
 * over docs/evidence and 200 checks per kind is scripts/check-report-consistency.ts.
 */
import {
  checkSummary,
  emptyTally,
  generatedAnalysis,
  KINDS,
  printedIntervals,
  withAnalysis
} from '../../scripts/lib/report-consistency.js'
import { pass } from '../__fixtures__/summaries/pass.js'

const PER_KIND = 12

test.each(KINDS)(
  '%s: every printed interval above −100%%, one interval per comparison, verdicts keep their rule',
  kind => {
    const tally = emptyTally()
    for (let seed = 1; seed <= PER_KIND; seed++)
      checkSummary(`${kind} #${seed}`, withAnalysis(pass, generatedAnalysis(kind, seed)), tally)
    expect(tally.findings).toEqual([])
    expect(tally.comparisons).toBe(PER_KIND)
    expect(tally.crossChecked).toBeGreaterThan(PER_KIND * 3)
    if (kind === 'unbounded') expect(tally.unboundedEnds).toBeGreaterThan(0)
  }
)

test('the check finds what issue 51 found: a reason quoting another interval, an end below −100%, a REGRESSION reaching below the limit', () => {
  const analysis = generatedAnalysis('fixed', 3)
  const c = analysis.comparisons[0]!
  // TEST TRANSFORMATIONS of a generated analysis (not measurements): the three defects as the report showed them.
  const doctored = {
    ...analysis,
    comparisons: [
      {
        ...c,
        verdict: 'regression' as const,
        ci95: { low: -160, high: 417 },
        reason: '+42.00% [+58.68, +246.54] exceeds +2% even at the CI’s favourable end: regression.'
      }
    ]
  }
  const tally = emptyTally()
  checkSummary('doctored', withAnalysis(pass, doctored), tally)
  const what = tally.findings.map(f => f.what).join('\n')
  expect(what).toMatch(/at or below −100%/)
  expect(what).toMatch(/reason \+42\.00% \[\+58\.68, \+246\.54\] vs JSON/)
  expect(what).toMatch(/REGRESSION with -160/)
})

test('printed intervals are read back in all their forms', () => {
  const { found, bad } = printedIntervals(
    '+42% [not bounded below, +417] · 320× [154×, 441×] · −3.14% [−26.86, +28.05] · +1% [?, ?]'
  )
  expect(found.map(f => [f.low, f.high])).toEqual([
    [-Infinity, 417],
    [15300, 44000],
    [-26.86, 28.05]
  ])
  expect(bad).toEqual(['+1% [?, ?]'])
})
