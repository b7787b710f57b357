import type { CheckSummary, Comparison } from '../../src/types/index.js'
import { startupSection } from '../../src/report/startup.js'
import { pass, severalArms } from '../__fixtures__/summaries/index.js'

const PHASES = ['launch_s', 'interpreter_s', 'imports_s', 'device_init_s', 'first_kernel_s']

function body(summary: CheckSummary): string {
  const section = startupSection(summary)
  if (!section) throw new Error('no start-up section')
  return section.body
}

/** Table rows (without header and delimiter) that follow a lead line containing `lead`. */
function rowsAfter(md: string, lead: string): string[][] {
  const from = md.indexOf(lead)
  expect(from).toBeGreaterThanOrEqual(0)
  const lines = md.slice(from).split('\n')
  const start = lines.findIndex(l => l.startsWith('| Phase'))
  const rows: string[][] = []
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith('|')) break
    rows.push(
      l
        .split('|')
        .slice(1, -1)
        .map(c => c.trim())
    )
  }
  return rows
}

function startup(summary: CheckSummary, workload: string, candidate = 'container'): Comparison[] {
  return summary.analysis!.comparisons.filter(
    c => c.scope === 'startup' && c.workload === workload && c.candidate_env === candidate
  )
}

describe('start-up section', () => {
  const md = body(pass)

  test('phases in the order they happen, with readable labels, then the two totals', () => {
    const labels = rowsAfter(md, '**matmul**').map(r => r[0])
    expect(labels).toEqual([
      'Container/process launch',
      'Interpreter start',
      'Imports',
      'CUDA/device init',
      'First kernel',
      '**Start-up total** (spawn → measuring)',
      '**Whole process** (spawn → exit)'
    ])
    expect(md).not.toMatch(/_s \|/)
  })

  test('no synthetic whole-process row when process_wall_s was compared', () => {
    expect(md).not.toContain('runner wall')
    expect(md.match(/Whole process/g)).toHaveLength(2) // one row per workload
  })

  test('the synthetic whole-process row comes back for inputs without process_wall_s', () => {
    const comparisons = pass.analysis!.comparisons.filter(c => c.metric !== 'process_wall_s')
    const md2 = body({ ...pass, analysis: { ...pass.analysis!, comparisons } })
    expect(rowsAfter(md2, '**matmul**').at(-1)![0]).toBe('**Whole process** (runner wall)')
  })

  test('"start-up phases" sums launch to first kernel only, not the totals', () => {
    const phases = startup(pass, 'matmul').filter(c => PHASES.includes(c.metric))
    expect(phases).toHaveLength(5)
    const sum = phases.reduce((a, c) => a + c.mean_candidate - c.mean_baseline, 0)
    const lead = md.split('\n').find(l => l.startsWith('**matmul**'))!
    const shown = /start-up phases \+([\d.]+) (s|ms)/.exec(lead)!
    const seconds = Number(shown[1]) * (shown[2] === 'ms' ? 1e-3 : 1)
    expect(seconds).toBeCloseTo(sum, 2)
    const total = startup(pass, 'matmul').find(c => c.metric === 'total_startup_s')!
    const wall = startup(pass, 'matmul').find(c => c.metric === 'process_wall_s')!
    // Counting the totals too would at least double it.
    expect(seconds).toBeLessThan(sum + (total.mean_candidate - total.mean_baseline) / 2)
    expect(lead).toContain(`whole process`)
    expect(wall.median_candidate).toBeGreaterThan(wall.median_baseline)
  })

  test('Relative is the overhead analyze reports (ratio of the means shown, with its CI)', () => {
    const imports = startup(pass, 'matmul').find(c => c.metric === 'imports_s')!
    const row = rowsAfter(md, '**matmul**').find(r => r[0] === 'Imports')!
    expect(Number(row[1]!.replace(/ m?s$/, '')) * (row[1]!.endsWith(' ms') ? 1e-3 : 1)).toBeCloseTo(
      imports.mean_baseline,
      2
    )
    expect(Number(/^([+-][\d.]+)%/.exec(row[4]!)![1])).toBeCloseTo(imports.overhead_pct, 1)
    expect(row[4]).toMatch(/\[[+-][\d.]+, [+-][\d.]+\]$/)
    // Large ratios read as factors.
    const launch = rowsAfter(md, '**matmul**').find(r => r[0] === 'Container/process launch')!
    expect(launch[4]).toMatch(/^[\d,]+(\.\d+)?× \[/)
  })

  test('names without _s (older inputs) are ordered and labelled the same', () => {
    const comparisons = pass.analysis!.comparisons.map(c =>
      c.scope === 'startup' ? { ...c, metric: c.metric.replace(/_s$/, '') } : c
    )
    const md2 = body({ ...pass, analysis: { ...pass.analysis!, comparisons } })
    expect(rowsAfter(md2, '**matmul**').map(r => r[0])).toEqual(rowsAfter(md, '**matmul**').map(r => r[0]))
  })

  test('prepare (first kernel → measuring) sits after the first kernel and counts in the phases', () => {
    const fk = startup(pass, 'matmul').find(c => c.metric === 'first_kernel_s')!
    const prepare = { ...fk, metric: 'prepare_s', mean_baseline: 0.5, mean_candidate: 0.9 }
    const comparisons = [...pass.analysis!.comparisons, prepare]
    const md2 = body({ ...pass, analysis: { ...pass.analysis!, comparisons } })
    const labels = rowsAfter(md2, '**matmul**').map(r => r[0])
    expect(labels.slice(4, 6)).toEqual(['First kernel', 'Warm-up, capture, checks'])
    const shown = (m: string): number => {
      const x = /start-up phases \+([\d.]+) (s|ms)/.exec(
        m.split('\n').find(l => l.startsWith('**matmul**'))!
      )!
      return Number(x[1]) * (x[2] === 'ms' ? 1e-3 : 1)
    }
    expect(shown(md2) - shown(md)).toBeCloseTo(0.4, 2)
    // Older results without it name nothing as missing.
    expect(md).not.toMatch(/warm-up, capture, checks not compared/)
  })

  test('missing phases are named in the lead', () => {
    const comparisons = pass.analysis!.comparisons.filter(
      c => !(c.workload === 'matmul' && c.metric === 'launch_s')
    )
    const md2 = body({ ...pass, analysis: { ...pass.analysis!, comparisons } })
    expect(md2).toMatch(
      /\*\*matmul\*\*.*start-up phases [+-][\d.]+ m?s \(container\/process launch not compared\)/
    )
  })
})

describe('start-up section with several candidate arms', () => {
  const md = body(severalArms)
  const next = 'container:nvcr.io/nvidia/pytorch:25.11-py3'

  test('one lead and one table per arm pair, in declared arm order', () => {
    const leads = md.split('\n').filter(l => l.startsWith('**matmul**'))
    expect(leads).toEqual([
      expect.stringContaining('`container` vs `native`'),
      expect.stringContaining(`\`${next}\` vs \`native\``)
    ])
  })

  test('arms are never mixed: each table holds its own arm’s means', () => {
    for (const arm of ['container', next]) {
      const imports = startup(severalArms, 'matmul', arm).find(c => c.metric === 'imports_s')!
      const rows = rowsAfter(md, `\`${arm}\` vs \`native\``)
      expect(rows).toHaveLength(7)
      const row = rows.find(r => r[0] === 'Imports')!
      expect(Number(row[2]!.replace(/ s$/, ''))).toBeCloseTo(imports.mean_candidate, 2)
    }
  })

  test('each lead quotes the steady state of its own arm pair', () => {
    const lead = md.split('\n').find(l => l.includes(`\`${next}\` vs`))!
    expect(lead).toMatch(/steady state \(kernel_ms\) \+3\.\d\d%/)
    const own = md.split('\n').find(l => l.includes('`container` vs'))!
    expect(own).toMatch(/steady state \(kernel_ms\) [+-]0\.\d\d%/)
  })

  test('analysis notes about start-up metrics are shown here', () => {
    expect(md).toContain('- matmul/launch_s was measured in')
  })

  test('a note about the prepare phase is a start-up note too', () => {
    const note = 'llm/prepare_s was measured in 3 runs only'
    const md2 = body({ ...pass, analysis: { ...pass.analysis!, notes: [note] } })
    expect(md2).toContain(`- ${note}`)
  })
})
