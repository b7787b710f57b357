import { checkGate, checkVerdict, exitCodeFor } from '../../src/gate/index.js'
import { checkConclusion } from '../../src/report/check-run.js'
import { verdictLine } from '../../src/report/verdict.js'
import type { CheckSummary } from '../../src/types/index.js'
import {
  gateFailed,
  incomparable,
  incomplete,
  inconclusive,
  pass,
  regression
} from '../__fixtures__/summaries/index.js'

describe('exitCodeFor: one mapping for every command', () => {
  it.each([
    ['pass', 0],
    ['skip', 0],
    ['warn', 0],
    ['equivalent', 0],
    ['inconclusive', 0],
    ['incomparable', 0],
    ['regression', 1],
    ['fail', 1],
    ['error', 2]
  ] as const)('%s → %i', (outcome, code) => expect(exitCodeFor(outcome)).toBe(code))

  it('fail-on-regression off lets a regression through, never an error', () => {
    expect(exitCodeFor('regression', { failOnRegression: false })).toBe(0)
    expect(exitCodeFor('error', { failOnRegression: false })).toBe(2)
    expect(exitCodeFor('error', { failOnRegression: false, failedGate: true })).toBe(1)
  })
})

describe('checkGate (the action and `run` alike)', () => {
  it('passes pass and incomparable without a reason', () => {
    for (const s of [pass, incomparable]) expect(checkGate(s, true)).toEqual({ exitCode: 0, failure: null })
  })

  it('a regression fails with its one-line reason, unless fail-on-regression is off', () => {
    expect(checkGate(regression, true)).toEqual({
      exitCode: 1,
      failure: expect.stringMatching(/^overhead regression: matmul kernel_ms/)
    })
    expect(checkGate(regression, false)).toEqual({ exitCode: 0, failure: null })
  })

  it('an error verdict fails the step even with fail-on-regression off: 1 for a failed gate, else 2', () => {
    expect(checkGate(gateFailed, false)).toEqual({
      exitCode: 1,
      failure: expect.stringMatching(/^preflight failed: driver-gate: /)
    })
    const stopped = checkGate(incomplete, true)
    expect(stopped.exitCode).toBe(2)
    expect(stopped.failure).toMatch(/^no verdict \(error\): /)
    expect(stopped.failure).not.toContain('\n')
  })

  it('nothing measured is an error, never a pass', () => {
    const nothing: CheckSummary = { ...pass, verdict: 'error', analysis: null, complete: true }
    expect(checkGate(nothing, true).exitCode).toBe(2)
  })
})

describe('undecided is not green (on-inconclusive)', () => {
  const withPolicy = (on: 'pass' | 'neutral' | 'fail', base: CheckSummary = inconclusive): CheckSummary => ({
    ...base,
    config: { ...base.config, on_inconclusive: on, max_runs: 12 }
  })

  it('exitCodeFor: inconclusive exits 0 unless on-inconclusive is fail', () => {
    expect(exitCodeFor('inconclusive', { onInconclusive: 'pass' })).toBe(0)
    expect(exitCodeFor('inconclusive', { onInconclusive: 'neutral' })).toBe(0)
    expect(exitCodeFor('inconclusive', { onInconclusive: 'fail' })).toBe(1)
    // The setting touches nothing but an undecided outcome.
    expect(exitCodeFor('equivalent', { onInconclusive: 'fail' })).toBe(0)
    expect(exitCodeFor('incomparable', { onInconclusive: 'fail' })).toBe(0)
  })

  it('an analysis with an undecided gated metric is the verdict inconclusive, never pass', () => {
    expect(checkVerdict(inconclusive.analysis, [], true, ['matmul', 'llm'])).toBe('inconclusive')
    expect(checkVerdict(pass.analysis, [], true, ['matmul', 'llm', 'io'])).toBe('pass')
    // A check of rule-gated workloads only (no gated samples) has nothing to be undecided about.
    const ruleOnly = { comparisons: [], verdict: 'inconclusive' as const, max_overhead_pct: 2, alpha: 0.05 }
    expect(checkVerdict(ruleOnly, [], true, [], false)).toBe('pass')
  })

  it.each([
    ['pass', 0, 'success', /^\*\*UNDECIDED\*\* \(gate passes: on-inconclusive pass\)/],
    ['neutral', 0, 'neutral', /^\*\*UNDECIDED\*\* \(neutral: not a pass\)/],
    ['fail', 1, 'failure', /^\*\*UNDECIDED\*\* \(check fails: on-inconclusive fail\)/]
  ] as const)(
    'on-inconclusive %s: exit %i, Check run %s, first line UNDECIDED',
    (on, code, conclusion, line) => {
      const s = withPolicy(on)
      const gate = checkGate(s, true)
      expect(gate.exitCode).toBe(code)
      if (code === 1)
        expect(gate.failure).toMatch(/^undecided \(on-inconclusive: fail\): 2 of 4 gated metrics undecided/)
      else expect(gate.failure).toBeNull()
      expect(checkConclusion(s)).toBe(conclusion)
      expect(verdictLine(s)).toMatch(line)
      expect(verdictLine(s)).toMatch(
        /~800 runs per arm would decide them \(llm tokens_per_s needs the most; max-runs 12\)/
      )
    }
  )

  it('a summary written before the setting existed reads as neutral', () => {
    const old: CheckSummary = { ...inconclusive, config: { ...inconclusive.config } }
    delete old.config.on_inconclusive
    expect(checkGate(old, true).exitCode).toBe(0)
    expect(checkConclusion(old)).toBe('neutral')
  })

  it('the runs needed come from the sequential rule where it ran, and a futility stop says so', () => {
    const s: CheckSummary = {
      ...withPolicy('neutral'),
      sequential: [
        {
          workload: 'llm',
          runs_per_arm: 8,
          reason: 'futile',
          metrics: [
            { candidate: 'container', key: 'tpot_ms', state: 'undecided', runs_to_decide: 140 },
            { candidate: 'container', key: 'tokens_per_s', state: 'undecided', runs_to_decide: 60 },
            { candidate: 'container', key: 'ttft_ms', state: 'equivalent', runs_to_decide: null }
          ],
          undecided: ['tpot_ms: undecided (~140 runs per arm would decide it)']
        }
      ]
    }
    expect(verdictLine(s)).toMatch(
      /~140 runs per arm would decide them \(llm tpot_ms needs the most; max-runs 12\)/
    )
    expect(verdictLine(s)).toMatch(/llm stopped for futility: the runs needed far exceed max-runs/)
  })
})
