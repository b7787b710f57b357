/**
 * The real pipeline (native arms on the CPU, no Docker needed) saving accepted checks: each `run
 * --save-baseline` adds one point per series to the baseline file's history, with the commit the check
 * ran on, and `trend` reads them back.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { parseBaseline } from '../../src/analyze/index.js'
import { mainInProcess } from '../helpers/main-in-process.js'

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-trend-run-'))
const baseline = path.join(ws, 'baseline.json')

async function quiet(argv: string[]): Promise<number> {
  return (await mainInProcess(argv)).code
}

describe('run --save-baseline feeds the trend history', () => {
  const saved = process.env.GITHUB_SHA
  afterAll(() => {
    if (saved === undefined) delete process.env.GITHUB_SHA
    else process.env.GITHUB_SHA = saved
  })

  it('adds one point per accepted check, with its commit', async () => {
    for (const sha of ['a'.repeat(40), 'b'.repeat(40)]) {
      process.env.GITHUB_SHA = sha
      const code = await quiet([
        'run',
        '--device',
        'cpu',
        '--arms',
        'native,native',
        '--workloads',
        'matmul',
        '--runs',
        '2',
        '--warmup-runs',
        '0',
        '--matmul-size',
        '32',
        '--baseline-path',
        baseline,
        '--save-baseline',
        '--max-overhead',
        '50%',
        '--out',
        path.join(ws, `out-${sha[0]}`)
      ])
      expect([0, 1]).toContain(code)
    }
    const parsed = parseBaseline(JSON.parse(fs.readFileSync(baseline, 'utf8')))
    if ('error' in parsed) throw new Error(parsed.error)
    const series = Object.values(parsed.data.history ?? {})
    expect(series.map(s => s.environment).sort()).toEqual(['native', 'native#2'])
    for (const s of series) {
      expect(s.workload).toBe('matmul')
      expect(s.facts.device).toBe('cpu')
      expect(s.points.map(p => p.commit)).toEqual(['a'.repeat(40), 'b'.repeat(40)])
      expect(Object.keys(s.points[0]!.metrics).length).toBeGreaterThan(0)
    }
    // Two points are too few for a change point: the trend passes and says so per series.
    expect(await quiet(['trend', '--baseline', baseline])).toBe(0)
  })
})
