import type { CheckSummary } from '../../src/types/index.js'
import { buildReport } from '../../src/report/markdown.js'
import { gatingComparisons, verdictLine } from '../../src/report/verdict.js'
import { writableLayerSection } from '../../src/report/writable-layer.js'
import { pass, regression } from '../__fixtures__/summaries/index.js'

const INFO = [
  'scratch_write_mb_s',
  'scratch_read_mb_s',
  'small_files_ops_s',
  'copyup_ms@1MiB',
  'copyup_ms@16MiB',
  'copyup_ms@128MiB'
]

function section(md: string, heading: string): string {
  const from = md.indexOf(heading)
  expect(from).toBeGreaterThanOrEqual(0)
  const next = md.indexOf('\n## ', from + heading.length)
  return md.slice(from, next === -1 ? undefined : next)
}

describe('writable-layer section', () => {
  const md = buildReport(pass)
  const info = section(md, '## Writable layer (OverlayFS tax, informational)')
  const gated = section(md, '## Steady-state overhead (gated)')

  test('comes right after the gated table, before start-up', () => {
    const at = [
      '## Steady-state overhead (gated)',
      '## Writable layer (OverlayFS tax, informational)',
      '## Start-up vs steady state'
    ].map(h => md.indexOf(h))
    expect([...at].sort((a, b) => a - b)).toEqual(at)
  })

  test('a row per info comparison with means and units, ↓/↑, overhead with CI, and a verdict word', () => {
    for (const m of INFO) expect(info).toContain(`| ${m} `)
    expect(info).toMatch(
      /\| copyup_ms@1MiB ↓ +\| +1\d\.\d µs \| +4\.\d\d ms \| +\d+× \[\d+×, \d+×\] \| worse/
    )
    expect(info).toMatch(/\| scratch_write_mb_s ↑ +\| +1,\d{3} MB\/s \| +1,\d{3} MB\/s \| +[+-]\d\.\d+% \[/)
    expect(info).not.toContain('**regression**')
  })

  test('says what it measures, why it never gates, and where the bind-mounted path is', () => {
    expect(info).toContain('copy-up of image files, small files, scratch')
    expect(info).toContain('never gate')
    expect(info).toContain('bind mounts never pays them (seed 003)')
    expect(info).toContain('`data_read_mb_s`, `ckpt_write_mb_s`')
  })

  test('info metrics are neither in the gated table nor in the verdict counts', () => {
    for (const m of INFO) expect(gated).not.toContain(m)
    expect(gatingComparisons(pass).some(c => c.scope === 'info')).toBe(false)
    expect(verdictLine(pass)).toBe(
      '**PASS** — container overhead vs native within ±2% on all 6 gated metrics'
    )
  })

  test('an info "regression" (copy-up) never makes the check a regression', () => {
    expect(pass.analysis!.comparisons.some(c => c.scope === 'info' && c.verdict === 'regression')).toBe(true)
    expect(verdictLine(pass)).toMatch(/^\*\*PASS\*\*/)
    expect(verdictLine(regression)).toMatch(/\(and 1 more metric\)$/)
  })

  test('native vs native: no writable-layer section (nothing ran in a container), the io figures as file I/O', () => {
    const arms = pass.arms.map(a => ({ ...a, kind: 'native' as const, image: null }))
    const s: CheckSummary = { ...pass, arms }
    const report = buildReport(s)
    expect(report).not.toContain('Writable layer')
    const io = section(report, '## File I/O (informational)')
    expect(io).not.toContain('OverlayFS')
    expect(io).toContain('No arm ran in a container, so no writable layer was measured')
    for (const m of INFO) expect(io).toContain(`| ${m} `)
  })

  test('no section without info comparisons', () => {
    const comparisons = pass.analysis!.comparisons.filter(c => c.scope !== 'info')
    const s: CheckSummary = { ...pass, analysis: { ...pass.analysis!, comparisons } }
    expect(writableLayerSection(s)).toBeNull()
    expect(buildReport(s)).not.toContain('Writable layer')
  })
})

describe('the bind-mounted path in the informational table', () => {
  // 2026-11-27-layouts-final: 2 runs per arm of the bind-mounted read, one file system for both arms, read
  // −36.8% [−51.7, −17.2] in a same-image check. The section says such a difference is disk noise.
  const base = pass.analysis!.comparisons.find(c => c.scope === 'info' && c.metric === 'scratch_read_mb_s')!
  const row = (metric: string, verdict: 'improvement' | 'regression' | 'equivalent') => ({
    ...base,
    workload: 'io',
    metric,
    verdict
  })
  const summary: CheckSummary = {
    ...pass,
    analysis: {
      ...pass.analysis!,
      comparisons: [
        ...pass.analysis!.comparisons,
        row('data_read_mb_s', 'improvement'),
        row('ckpt_write_mb_s', 'regression'),
        row('small_files_ops_s', 'regression')
      ]
    }
  }
  const info = writableLayerSection(summary)!.body

  test('claims no improvement or worse for it, and keeps the words of the writable layer’s own rows', () => {
    expect(info).toMatch(/\| data_read_mb_s ↑ .*\| differs \(disk noise\) +\|/)
    expect(info).toMatch(/\| ckpt_write_mb_s ↑ .*\| differs \(disk noise\) +\|/)
    expect(info).not.toMatch(/\| (data_read_mb_s|ckpt_write_mb_s) ↑ .*\| (improvement|worse) +\|/)
    expect(info).toMatch(/\| small_files_ops_s ↑ .*\| worse +\|/)
  })
})
