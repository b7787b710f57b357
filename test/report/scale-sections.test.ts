/**
 * The per-GPU and power-cap sections. The two-GPU and the skipped-sweep summaries are real
 * (docs/evidence/2026-11-22-h200x2); the swept case is built from synthetic run records, because no power
 * limit may be changed on the lent GPUs (shared machines) — the numbers only exercise the rendering.
 */
import * as fs from 'node:fs'
import { edpOptimal, powerCapRows } from '../../src/analyze/power.js'
import { summarizeTelemetry } from '../../src/execute/telemetry-attribute.js'
import { buildReport } from '../../src/report/markdown.js'
import type { CheckSummary, RunRecord } from '../../src/types/index.js'
import { runRecord } from '../helpers/run-record.js'

const load = (dir: string): CheckSummary =>
  JSON.parse(
    fs.readFileSync(`test/__fixtures__/evidence/2026-11-22-h200x2/${dir}/summary.json`, 'utf8')
  ) as CheckSummary
const section = (md: string, title: string): string => {
  const start = md.indexOf(`## ${title}`)
  expect(start).toBeGreaterThanOrEqual(0)
  const next = md.indexOf('\n## ', start + 3)
  return md.slice(start, next === -1 ? undefined : next)
}

describe('per-GPU section (real two-H200 check)', () => {
  const summary = load('multi-gpu')
  const md = buildReport(summary, { maxChars: Infinity })
  it('follows the gated table and names both GPUs by index, model and UUID', () => {
    expect(md.indexOf('## Per GPU')).toBeGreaterThan(md.indexOf('## Steady-state overhead (gated)'))
    const s = section(md, 'Per GPU')
    for (const g of summary.multi_gpu!.gpus)
      expect(s).toContain(`### GPU ${g.index} — NVIDIA H200 (\`${g.uuid}\`)`)
    expect(s).toContain('### GPU against its siblings')
    expect(s).toMatch(/\| 1 vs 0 \| container \| llm {6}\| tpot_ms/)
  })
  it('telemetry gets a row per GPU, so one hot or throttled GPU cannot hide in an average', () => {
    const action = JSON.parse(
      fs.readFileSync('test/__fixtures__/evidence/2026-11-22-h200x2/action-multi-gpu/summary.json', 'utf8')
    ) as CheckSummary
    const telemetry = summarizeTelemetry(action.runs)
    expect(telemetry.map(t => [t.workload, t.environment, t.gpu, t.runs])).toEqual(
      expect.arrayContaining([
        ['matmul', 'native', 0, 6],
        ['matmul', 'native', 1, 6],
        ['llm', 'container', 1, 6]
      ])
    )
    const s = section(buildReport({ ...action, telemetry }, { maxChars: Infinity }), 'GPU telemetry')
    expect(s).toMatch(/\| Workload \| Arm\s+\| GPU \| GPU util/)
    expect(s).toMatch(/\| matmul\s+\| native\s+\|\s+0 \|/)
    expect(s).toMatch(/\| matmul\s+\| native\s+\|\s+1 \|/)
  })
  it('says which layout ran: lockstep (this recording) or a duet', () => {
    expect(section(md, 'Per GPU')).toContain('one process per GPU at the same time on 2 GPUs')
    const duet = buildReport(
      { ...summary, config: { ...summary.config, gpu_layout: 'duet' } },
      { maxChars: Infinity }
    )
    expect(section(duet, 'Per GPU')).toContain(
      'ran as a duet on 2 GPUs: both arms at the same time on GPU pairs'
    )
  })
  it('a single-GPU check has no such section', () => {
    expect(buildReport(load('caps-unprivileged'))).not.toContain('## Per GPU')
  })
})

describe('power-cap section', () => {
  it('skipped without root (real run as user 65534): says why, and that the check ran at the current limits', () => {
    const s = section(buildReport(load('caps-unprivileged')), 'Power caps')
    expect(s).toContain(
      'Sweep of 400 W, 550 W **skipped**: setting a power limit needs root (nvidia-smi -pl), and this runner runs as user id 65534'
    )
    expect(s).toContain("Everything above ran at the GPUs' current power limits.")
  })

  const run = (cap: number, env: string, n: number, time: number, energy: number): RunRecord =>
    runRecord({
      environment: env,
      run: n,
      energy_j: energy,
      energy_source: 'nvml',
      measured_s: time,
      params: { power_cap_w: cap }
    })
  // Synthetic: slower but frugal at 400 W, fastest at 700 W; 550 W has the lowest energy × time.
  const runs = [400, 550, 700].flatMap(cap =>
    ['native', 'container'].flatMap(env =>
      [1, 2, 3].map(n =>
        run(
          cap,
          env,
          n,
          { 400: 3.0, 550: 2.1, 700: 2.0 }[cap]! + n * 0.01,
          { 400: 900, 550: 1000, 700: 1300 }[cap]!
        )
      )
    )
  )

  it('medians per cap and arm, EDP = energy × time, the EDP-optimal cap marked', () => {
    const rows = powerCapRows(runs)
    expect(rows).toHaveLength(6)
    const r550 = rows.find(r => r.cap_w === 550 && r.environment === 'native')!
    expect(r550.time_s).toBeCloseTo(2.12, 9)
    expect(r550.edp_js).toBeCloseTo(1000 * 2.12, 9)
    expect(edpOptimal(rows)).toEqual([
      { workload: 'matmul', environment: 'container', cap_w: 550 },
      { workload: 'matmul', environment: 'native', cap_w: 550 }
    ])
  })

  it('renders the sweep, and shouts when a limit could not be put back', () => {
    const base = load('caps-unprivileged')
    const rows = powerCapRows(runs)
    const power = {
      status: 'swept' as const,
      caps_w: [400, 550, 700],
      reason: null,
      original_limits_w: [{ gpu: 0, limit_w: 700 }],
      restored: true,
      rows,
      edp_optimal: edpOptimal(rows)
    }
    const s = section(buildReport({ ...base, power }), 'Power caps')
    expect(s).toMatch(
      /\| matmul\s+\| 550 W \| native\s+\|\s+3 \|\s+2\.12 s \|\s+1,000 J \| 2,120 J·s \| \*\*best\*\*\s+\|/
    )
    expect(s).toContain('EDP-optimal cap — matmul container: 550 W; matmul native: 550 W.')
    expect(s).toContain('Original limits put back after the sweep: GPU 0 700 W.')
    expect(section(buildReport({ ...base, power }), 'GPU telemetry')).toContain(
      'These means span every power cap of the sweep; per cap, see Power caps.'
    )
    const bad = section(buildReport({ ...base, power: { ...power, restored: false } }), 'Power caps')
    expect(bad).toContain('**Original limits were NOT all put back** (GPU 0 700 W)')
  })
})
