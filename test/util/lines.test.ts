import { LineSplitter } from '../../src/util/lines.js'

function split(chunks: string[], max?: number): { lines: string[]; tooLong: number[] } {
  const lines: string[] = []
  const tooLong: number[] = []
  const s = new LineSplitter({ line: l => lines.push(l), tooLong: n => tooLong.push(n) }, max)
  for (const c of chunks) s.push(c)
  s.flush()
  return { lines, tooLong }
}

describe('LineSplitter', () => {
  it('splits across chunk boundaries and keeps an unfinished last line', () => {
    expect(split(['a', 'b\nc', 'd\n\ne', 'f']).lines).toEqual(['ab', 'cd', '', 'ef'])
  })
  it('drops a line over the cap by length only and goes on with the next', () => {
    expect(split(['12345', '678\nok\n'], 4)).toEqual({ lines: ['ok'], tooLong: [8] })
  })
  it('handles a 50 MB line without a newline in linear time and bounded memory (case 7)', () => {
    const chunk = 'x'.repeat(64 * 1024)
    const lines: string[] = []
    let too = 0
    const s = new LineSplitter({ line: l => lines.push(l), tooLong: n => (too = n) })
    const t0 = Date.now()
    for (let i = 0; i < 800; i++) s.push(chunk)
    s.flush()
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(lines).toEqual([])
    expect(too).toBe(800 * 64 * 1024)
  })
})
