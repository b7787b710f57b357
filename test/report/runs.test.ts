/**
 * The report's first screen says each count once: the runs per arm that ran (sequential stopping goes past
 * `runs`), and one runs-needed figure per undecided metric — the sequential rule's where it ran, the same
 * number as its stop note, never a second (power) estimate beside it.
 */
import { buildReport } from '../../src/report/markdown.js'
import { runsNeeded, runsPerArm } from '../../src/report/runs.js'
import type { CheckSummary } from '../../src/types/index.js'
import { inconclusive } from '../__fixtures__/summaries/index.js'

/** The fixture as a sequential check would write it: runs 4, llm went on to 12 runs and stayed undecided. */
function sequential(runsToDecide: number | null): CheckSummary {
  const comparisons = inconclusive.analysis!.comparisons.map(c => ({ ...c, n_baseline: 12, n_candidate: 12 }))
  return {
    ...inconclusive,
    config: { ...inconclusive.config, runs: 4 },
    analysis: { ...inconclusive.analysis!, comparisons },
    sequential: [
      { workload: 'matmul', runs_per_arm: 4, reason: 'decided', metrics: [], undecided: [] },
      {
        workload: 'llm',
        runs_per_arm: 12,
        reason: 'max-runs',
        metrics: [
          { candidate: 'container', key: 'tpot_ms', state: 'undecided', runs_to_decide: runsToDecide },
          { candidate: 'container', key: 'tokens_per_s', state: 'undecided', runs_to_decide: 25 }
        ],
        undecided: [`tpot_ms: undecided (~${runsToDecide} runs per arm would decide it)`]
      }
    ]
  }
}

const head = (md: string): string => md.split('\n').slice(0, 3).join('\n')

describe('runs per arm in the header', () => {
  it('the runs that ran, not the runs input: 4 to 12 where workloads stopped apart', () => {
    const s = sequential(40)
    expect(runsPerArm(s)).toBe('4–12 runs per arm')
    expect(head(buildReport(s))).toContain(' · 4–12 runs per arm · ')
    expect(head(buildReport(s))).not.toContain(' 4 runs per arm')
  })

  it('a fixed count: the analysed runs', () => {
    expect(runsPerArm(inconclusive)).toBe('10 runs per arm')
    const one: CheckSummary = {
      ...inconclusive,
      sequential: [{ ...sequential(1).sequential![1]!, runs_per_arm: 1 }]
    }
    expect(runsPerArm(one)).toBe('1 run per arm')
  })
})

describe('one runs-needed figure', () => {
  it("the sequential rule's, in the verdict line and the table notes alike; the power estimate nowhere", () => {
    const s = sequential(40)
    const tpot = s.analysis!.comparisons.find(c => c.metric === 'tpot_ms')!
    expect(runsNeeded(s, tpot)).toEqual({ runs: 40, rule: 'sequential' })
    const md = buildReport(s)
    // The UNDECIDED first line gives the runs that decide every undecided gated metric (issue 28).
    expect(md.split('\n')[0]).toContain('~40 runs per arm would decide them')
    expect(md).toContain('~40 runs per arm would decide it (sequential rule)')
    expect(md).toContain('~25 runs per arm would decide it (sequential rule)')
    expect(md).not.toMatch(/~780 runs|~800 runs/)
  })

  it('an effect on the threshold: no number, said once', () => {
    const md = buildReport(sequential(null))
    expect(md.split('\n')[0]).not.toContain('needs ~')
    expect(md).toContain('its effect sits on the ±2% threshold: no number of runs decides it')
    expect(md).not.toMatch(/~780 runs/)
  })

  it('a fixed count (no sequential rule): the power estimate', () => {
    const md = buildReport(inconclusive)
    // The first line: the most any undecided gated metric needs, naming it; the table: each one's.
    expect(md.split('\n')[0]).toContain(
      '~800 runs per arm would decide them (llm tokens_per_s needs the most)'
    )
    expect(md).toContain('~780 runs per arm would detect a 2% difference (80% power)')
  })
})

/**
 * Issue 28: the UNDECIDED line and the table took their runs-needed figures from two functions (the line from
 * the sequential metrics alone, the table per comparison), so the line could quote a number the table shows for
 * no metric. Now one function (runsNeeded, through runsToDecide) serves both: the line quotes the largest
 * figure of the table, for the metric it names.
 */
describe('the first line and the table agree', () => {
  /** The figures of the table's notes, by metric, and the first line's figure and metric. */
  function figures(summary: CheckSummary): { line: [string, number] | null; table: Map<string, number> } {
    const md = buildReport(summary)
    const first = md.split('\n')[0]!
    const table = new Map<string, number>()
    for (const m of md.matchAll(/^- `(\w+ \w+)` inconclusive: .*?~(\d+) runs per arm/gm))
      table.set(m[1]!, Number(m[2]))
    const n = /~(\d+) runs per arm would decide (?:it|them)(?: \((\w+ \w+) needs the most)?/.exec(first)
    const named = n?.[2] ?? /undecided \((\w+ \w+) /.exec(first)?.[1]
    return { line: n ? [named!, Number(n[1])] : null, table }
  }
  const agree = (summary: CheckSummary): void => {
    const { line, table } = figures(summary)
    expect(line).not.toBeNull()
    expect(table.size).toBeGreaterThan(0)
    expect(line![1]).toBe(Math.max(...table.values()))
    expect(table.get(line![0])).toBe(line![1])
  }

  it('a fixed count: the line quotes the table’s largest figure, for its metric', () => {
    agree(inconclusive)
  })

  it('a sequential check: the sequential figures on both', () => {
    agree(sequential(40))
    agree(sequential(7))
  })

  it('a metric the sequential rule did not track keeps its power figure in the line too', () => {
    const s: CheckSummary = {
      ...sequential(40),
      sequential: [
        {
          workload: 'llm',
          runs_per_arm: 12,
          reason: 'max-runs',
          metrics: [{ candidate: 'container', key: 'tpot_ms', state: 'undecided', runs_to_decide: 140 }],
          undecided: ['tpot_ms: undecided (~140 runs per arm would decide it)']
        }
      ]
    }
    agree(s)
    expect(buildReport(s).split('\n')[0]).toContain('~800 runs per arm would decide them')
  })

  it('a metric undecided at the last look but decided by the final analysis is not quoted', () => {
    const s = sequential(40)
    const comparisons = s.analysis!.comparisons.map(c =>
      c.metric === 'tpot_ms' ? { ...c, verdict: 'equivalent' as const } : c
    )
    const decided: CheckSummary = { ...s, analysis: { ...s.analysis!, comparisons } }
    agree(decided)
    expect(buildReport(decided).split('\n')[0]).toContain('~25 runs per arm would decide it')
  })
})

describe('a noisy own workload (issue 40)', () => {
  /** The llm rows as a user command `loader` (a DataLoader, ±20% between processes in the field). */
  function ownNoisy(): CheckSummary {
    const s = sequential(1317)
    const rename = <T extends { workload: string }>(x: T): T =>
      x.workload === 'llm' ? { ...x, workload: 'loader' } : x
    const comparisons = s.analysis!.comparisons.map(c =>
      c.workload === 'llm'
        ? { ...rename(c), sd_baseline: 0.2 * c.mean_baseline, sd_candidate: 0.18 * c.mean_candidate }
        : c
    )
    return {
      ...s,
      config: { ...s.config, commands: [{ name: 'loader', source: 'workflow', format: 'auto' }] },
      analysis: { ...s.analysis!, comparisons },
      sequential: s.sequential!.map(rename)
    }
  }

  it('says what would decide it, with the per-process spread seen, besides the runs figure', () => {
    const md = buildReport(ownNoisy())
    const first = md.split('\n')[0]!
    expect(first).toContain('~1317 runs per arm would decide them')
    expect(first).toMatch(/loader \S+ varied ±20% in native, ±18% in container from process to process/)
    expect(first).toMatch(/more samples per process .*a longer measured region/)
    expect(md).toMatch(/`loader tpot_ms` inconclusive: .*Loader tpot_ms varied ±20% in native/)
  })

  it('a built-in, or a tight own workload, gets the runs figure only', () => {
    expect(buildReport(sequential(40)).split('\n')[0]).not.toMatch(/process to process/)
    const tight = ownNoisy()
    tight.analysis!.comparisons = tight.analysis!.comparisons.map(c => ({
      ...c,
      sd_baseline: 0,
      sd_candidate: 0
    }))
    expect(buildReport(tight)).not.toMatch(/process to process/)
  })
})
