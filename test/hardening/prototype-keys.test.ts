/**
 * Tables read by a name from untrusted text (a metric, a unit, an image's variable) answer for their own keys
 * only: `constructor`, `toString` or `__proto__` once read Object.prototype's members — a function for a unit's
 * scale (a NaN in the report), for a metric's direction, for a variable's knowledge.
 */
import { envKnowledge } from '../../src/execute/index.js'
import { fmtValue } from '../../src/report/format.js'
import { knownMetric } from '../../src/results/known-metrics.js'
import { own } from '../../src/util/own.js'

const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']

test('own reads own keys only', () => {
  const table: Record<string, number> = { ms: 1 }
  expect(own(table, 'ms')).toBe(1)
  for (const n of NAMES) expect(own(table, n)).toBeUndefined()
})

test.each(NAMES)('a unit named %s is shown as text, never scaled by a prototype member', name => {
  expect(fmtValue(2, name)).toMatch(/^2\.00 \S+$/)
})

test.each(NAMES)('an image variable named %s gets the generic entry', name => {
  const k = envKnowledge(name)
  expect(typeof k.meaning).toBe('string')
  expect(k.impact).toBe(1)
})

test.each(NAMES)('a metric named %s has no known direction', name => {
  expect(knownMetric('llm', name)).toBeUndefined()
})
