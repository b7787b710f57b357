/**
 * The baseline section says which stored checks formed the reference of each comparison, and which were left
 * out as outlier checks (issue 28, D6).
 */
import { summarizeCheck } from '../../src/analyze/history-compare.js'
import { baselineSection } from '../../src/report/baseline-section.js'
import type { CheckSummary } from '../../src/types/index.js'
import { judgeKernelHistory } from '../../scripts/lib/baseline-sim.js'
import { pass } from '../__fixtures__/summaries/index.js'

const runs = (mean: number, wiggle: number): number[] =>
  [0, 1, 2, 3, 4].map(i => mean * (1 + wiggle * Math.sin(i + mean)))

function compared(stored: number[]): CheckSummary {
  const history = stored.map((m, i) => ({ ...summarizeCheck(runs(m, 0.003)), check_id: `night-${i + 1}` }))
  const comparison = judgeKernelHistory({
    workload: 'matmul',
    env: 'container',
    history,
    current: runs(41, 0.003),
    maxOverheadPct: 2,
    alpha: 0.05
  })
  return {
    ...pass,
    baseline: {
      status: 'compared',
      path: 'baseline.json',
      message: 'Compared 1 metric(s).',
      comparisons: [comparison],
      saved: false
    }
  }
}

describe('baseline section: the reference', () => {
  it('names the stored checks that formed it', () => {
    const body = baselineSection(compared([41, 41.05, 40.95, 41.02, 40.98])).body
    expect(body).toContain(
      '- Every comparison: the reference is the stored checks `night-1`, `night-2`, `night-3`, `night-4`, `night-5`.'
    )
    expect(body).not.toContain('left out')
  })

  it('names an accepted +5% check left out, with its overhead against the others', () => {
    const body = baselineSection(compared([41, 41.05, 43.05, 40.95, 41.02])).body
    expect(body).toMatch(
      /- Every comparison: the reference is the stored checks `night-1`, `night-2`, `night-4`, `night-5`; left out `night-3` \(\+5\.\d+% against the others\): the other stored checks would have flagged it/
    )
    expect(body).toMatch(/\| matmul\s+\| kernel_ms ↓ \| container \|\s+4 \|/)
  })
})
