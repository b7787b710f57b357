/**
 * Pieces the stored-baseline simulations share (scripts/simulate-verdicts.ts, which writes the README's tables,
 * and the tests that check the same rules with fewer histories): an in-memory baseline store with the JSON file
 * store's compare and append, and one steady lower-is-better metric judged against stored checks.
 */
import { appendToBaseline } from '../../src/analyze/baseline/index.js'
import { compareWithStored } from '../../src/analyze/baseline/compare-stored.js'
import { emptyFile, type BaselineFile } from '../../src/analyze/baseline/format.js'
import type { BaselineStore } from '../../src/analyze/baseline/store.js'
import { decide } from '../../src/analyze/compare/index.js'
import { compareWithHistory, type CheckMetricSummary } from '../../src/analyze/history-compare.js'
import type { Comparison } from '../../src/types/index.js'

/** The JSON file store's compare and append, in memory. */
export function memoryStore(): BaselineStore {
  let data: BaselineFile = emptyFile()
  return {
    location: 'memory',
    load: () => Promise.resolve({ status: 'ok' as const, location: 'memory', message: '', data }),
    compare: (current, options) => Promise.resolve(compareWithStored(data, current, options, 'memory')),
    append: (current, options) => {
      data = appendToBaseline(data, current, options).data
      return Promise.resolve({ saved: true, location: 'memory', message: 'saved', entries: 1 })
    }
  }
}

export interface HistoryCase {
  workload: string
  /** The arm compared with its own stored checks (`<env>@baseline`). */
  env: string
  history: readonly CheckMetricSummary[]
  current: readonly number[]
  maxOverheadPct: number
  alpha: number
}

/** A check's kernel_ms (steady, lower is better) against stored checks, decided as the analysis decides it. */
export function judgeKernelHistory(c: HistoryCase): Comparison {
  return decide(
    [
      compareWithHistory({
        workload: c.workload,
        metric: 'kernel_ms',
        unit: 'ms',
        direction: 'lower',
        directionSource: 'declared',
        scope: 'steady',
        params: '',
        baselineEnv: `${c.env}@baseline`,
        candidateEnv: c.env,
        history: c.history,
        current: c.current,
        maxOverheadPct: c.maxOverheadPct,
        alpha: c.alpha
      })
    ],
    { maxOverheadPct: c.maxOverheadPct, alpha: c.alpha }
  )[0]!
}
