import { fmtPctCi, fmtRatio, fmtValue } from '../../src/report/format.js'

describe('format', () => {
  test('large overheads read as factors, small ones as percentages', () => {
    expect(fmtPctCi(3.1, { low: 2.6, high: 3.5 })).toBe('+3.10% [+2.60, +3.50]')
    expect(fmtPctCi(25953.81, { low: 15281.34, high: 44031.45 })).toBe('261× [154×, 441×]')
    expect(fmtRatio(1.0475)).toBe('+4.75%')
    expect(fmtRatio(0.5)).toBe('-50.0%')
    expect(fmtRatio(1125.4)).toBe('1,125×')
    expect(fmtRatio(null)).toBe('–')
  })
  test('durations pick s, ms, µs or ns; percentages have no space', () => {
    expect(fmtValue(6.37, 's')).toBe('6.37 s')
    expect(fmtValue(0.0146, 'ms')).toBe('14.6 µs')
    expect(fmtValue(6.46e-7, 's')).toBe('646 ns')
    expect(fmtValue(73.01, '%')).toBe('73.0%')
  })
})
