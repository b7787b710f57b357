import { describeRule, isStrictReal, parseNumber } from '../../src/util/number.js'

const int = { kind: 'integer' as const }
const real = { kind: 'real' as const }

describe('strict number parser (one rule for config, flags and CSV)', () => {
  test.each([
    '0x10',
    '0o7',
    '0b1',
    '1_000',
    'Infinity',
    '-Infinity',
    'NaN',
    '',
    '  ',
    '1e',
    '.',
    '+',
    '1..2',
    '١٢'
  ])('%j is not a number anywhere', raw => {
    expect(parseNumber(raw, real).ok).toBe(false)
    expect(parseNumber(raw, int).ok).toBe(false)
  })

  test('integers are digits only: 5.0 and 1e3 are refused, 5 and " 7 " accepted', () => {
    expect(parseNumber('5.0', int)).toEqual({ ok: false, expected: 'a whole number (digits only)' })
    expect(parseNumber('1e3', int).ok).toBe(false)
    expect(parseNumber('5', int)).toEqual({ ok: true, value: 5 })
    expect(parseNumber(' 7 ', int)).toEqual({ ok: true, value: 7 })
    expect(parseNumber('99999999999999999999', int).ok).toBe(false) // beyond 2^53: not exact
  })

  test('reals accept fractions and exponents as Python writes them', () => {
    expect(parseNumber('0.05', real)).toEqual({ ok: true, value: 0.05 })
    expect(parseNumber('1.5e-3', real)).toEqual({ ok: true, value: 0.0015 })
    expect(parseNumber('.5', real)).toEqual({ ok: true, value: 0.5 })
    expect(parseNumber('-2.', real)).toEqual({ ok: true, value: -2 })
    expect(parseNumber('1e400', real).ok).toBe(false) // overflows to Infinity
    expect(parseNumber('-0', real)).toEqual({ ok: true, value: 0 })
  })

  test('bounds: inclusive, exclusive, named in the expectation', () => {
    const rule = { kind: 'integer' as const, min: 1, max: 1000 }
    expect(parseNumber('0', rule)).toEqual({
      ok: false,
      expected: 'a whole number (digits only) at least 1 and at most 1000'
    })
    expect(parseNumber('1000', rule).ok).toBe(true)
    expect(parseNumber('0', { kind: 'real', min: 0, minExclusive: true }).ok).toBe(false)
    expect(parseNumber('-1', { kind: 'real', min: 0 }).ok).toBe(false)
    expect(describeRule({ kind: 'real', min: 0, minExclusive: true, max: 0.5 })).toBe(
      'a decimal number above 0 and at most 0.5'
    )
  })

  test('isStrictReal', () => {
    expect(isStrictReal('41.0')).toBe(true)
    expect(isStrictReal('0x29')).toBe(false)
  })
})
