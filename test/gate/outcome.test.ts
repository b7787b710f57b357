import { checkGate, exitCodeFor } from '../../src/gate/index.js'
import type { CheckSummary } from '../../src/types/index.js'
import { gateFailed, incomparable, incomplete, pass, regression } from '../__fixtures__/summaries/index.js'

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
