import type { CheckSummary, Comparison, RunRecord, RunSeries } from '../../src/types/index.js'
import { DEFAULT_MAX_CHARS, REPORT_MARKER, buildReport, reportMarker } from '../../src/report/markdown.js'
import { verdictLine } from '../../src/report/verdict.js'
import {
  SUMMARIES,
  gateFailed,
  incomplete,
  inconclusive,
  pass,
  regression,
  severalArms
} from '../__fixtures__/summaries/index.js'

describe('buildReport snapshots', () => {
  for (const [name, summary] of Object.entries(SUMMARIES)) {
    test(name, () => {
      const md = buildReport(summary)
      expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_CHARS)
      expect(md).toMatchSnapshot()
    })
  }
})

describe('verdict line', () => {
  test('pass names the limit and the number of gated metrics', () => {
    expect(verdictLine(pass)).toBe(
      '**PASS** — container overhead vs native within ±2% on all 6 gated metrics'
    )
  })
  test('regression names the worst metric, its CI and the limit', () => {
    expect(verdictLine(regression)).toMatch(
      /^\*\*REGRESSION\*\* — matmul kernel_ms \+3\.\d\d% \[\+2\.60, \+3\.50\] over the 2% limit/
    )
  })
  test('incomplete says why, then what was measured', () => {
    expect(verdictLine(incomplete)).toMatch(
      /^\*\*INCOMPLETE\*\* — cancelled: the runner sent SIGTERM.*; measured before the stop: /
    )
  })
  test('undecided is never a pass: UNDECIDED, neutral by default, with the runs that would decide it', () => {
    expect(verdictLine(inconclusive)).toMatch(
      /^\*\*UNDECIDED\*\* \(neutral: not a pass\) — 2 of 4 gated metrics undecided \(llm tokens_per_s \+8\.0% .*\); ~800 runs per arm would decide them/
    )
    expect(verdictLine(inconclusive)).not.toMatch(/PASS|gate passes/)
  })
  test('a failed gate is named with its message', () => {
    expect(verdictLine(gateFailed)).toMatch(
      /^\*\*PREFLIGHT FAILED\*\* — driver-gate: host driver 550\.54\.15 is below 580/
    )
  })
  test('with several candidate arms the worst metric names its arm pair', () => {
    expect(verdictLine(severalArms)).toMatch(
      /^\*\*REGRESSION\*\* — matmul kernel_ms \(container:nvcr\.io\/nvidia\/pytorch:25\.11-py3 vs native\) \+3\.\d\d% /
    )
  })
  test('status words carry no emoji', () => {
    for (const s of Object.values(SUMMARIES)) expect(verdictLine(s)).not.toMatch(/\p{Extended_Pictographic}/u)
  })
})

describe('report contents', () => {
  const md = buildReport(pass)
  test('sections in order', () => {
    const order = [
      '**PASS**',
      '## Steady-state overhead (gated)',
      '## Start-up vs steady state',
      '## LLM latency',
      '## GPU telemetry',
      '## Preflight',
      '## Baseline comparison',
      '## Per-run values',
      '## Not measured',
      '## Environment',
      '## How to read this',
      '## Raw data'
    ]
    const at = order.map(h => md.indexOf(h))
    expect(at.every(i => i >= 0)).toBe(true)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
  })
  test('one xychart per gated workload, two line series each, title names the arms', () => {
    const charts = md.split('```mermaid').slice(1)
    expect(charts).toHaveLength(3)
    for (const c of charts) {
      expect(c).toContain('xychart-beta')
      expect(c.match(/^ {4}line \[/gm)).toHaveLength(2)
      expect(c).toMatch(/title ".*blue = native, red = container"/)
    }
  })
  test('LLM metric definitions', () => {
    expect(md).toContain('(E2E − TTFT) / (output tokens − 1)')
    expect(md).toContain('request start → first output token')
  })
  test('raw tables are collapsible', () => {
    expect(md).toMatch(/<details>\n<summary>Per-run values: matmul/)
  })
  test("each user command's parameters say where it was named: the workflow or the checked-out config file", () => {
    const run = pass.runs.find(r => !r.warmup)!
    const params = { device: 'gpu', command: 'python3 bench.py', format: 'auto' }
    const withCommands: CheckSummary = {
      ...pass,
      config: {
        ...pass.config,
        workloads: [...pass.config.workloads, 'mine', 'theirs'],
        commands: [
          { name: 'mine', source: 'workflow', format: 'auto' },
          { name: 'theirs', source: 'config-file', format: 'auto' }
        ]
      },
      runs: [...pass.runs, { ...run, workload: 'mine', params }, { ...run, workload: 'theirs', params }]
    }
    const env = buildReport(withCommands, { maxChars: Infinity })
    expect(env).toContain(
      '- `mine` (command from the workflow): device=gpu, command=python3 bench.py, format=auto\n'
    )
    expect(env).toContain('- `theirs` (command from the checked-out config file): device=gpu,')
    expect(env).toMatch(/- `matmul`: n=10000/)
  })
})

describe('secrets', () => {
  test('token-shaped strings and known secrets never reach the report', () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
    const s: CheckSummary = {
      ...pass,
      warnings: [
        `docker login failed with ${token}`,
        'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz012345 was set',
        'pulled https://bot:s3cretpw@registry.local/img'
      ],
      incomplete_reason: null
    }
    const md = buildReport(s, { secrets: ['s3cretpw'] })
    expect(md).not.toContain(token)
    expect(md).not.toContain('hf_abcdefghijklmnopqrstuvwxyz012345')
    expect(md).not.toContain('s3cretpw')
    expect(md).toContain('HF_TOKEN=***')
  })
  test('workload parameters named like secrets are left out, token counts are not', () => {
    const runs = pass.runs.map(r =>
      r.workload === 'llm' ? { ...r, params: { ...r.params, hf_token: 'hf_xyz' } } : r
    )
    const md = buildReport({ ...pass, runs })
    expect(md).not.toContain('hf_xyz')
    expect(md).toContain('prompt_tokens=512')
  })
})

describe('report marker', () => {
  test('marker per workflow and job, HTML comment kept intact', () => {
    const m = reportMarker('GPU overhead', 'check')
    expect(m.startsWith(REPORT_MARKER)).toBe(true)
    expect(m).toBe('<!-- gpu-overhead-action:report workflow="GPU overhead" job="check" -->')
    expect(reportMarker('a-->b', 'j"<x>')).toBe(
      '<!-- gpu-overhead-action:report workflow="a-_b" job="j__x_" -->'
    )
  })
})

/** Many metrics, many runs: far past 65,000 characters before trimming. */
function huge(): CheckSummary {
  const base = pass.analysis!.comparisons.find(c => c.metric === 'kernel_ms')!
  const comparisons: Comparison[] = []
  const series: RunSeries[] = []
  for (let i = 0; i < 400; i++) {
    const metric = `kernel_${i}_ms`
    comparisons.push({ ...base, metric, workload: `w${i % 40}`, reason: 'x'.repeat(80) })
    for (const env of ['native', 'container'])
      series.push({
        workload: `w${i % 40}`,
        metric,
        unit: 'ms',
        environment: env,
        values: Array.from({ length: 300 }, (_, k) => 41 + (k % 7) * 0.01)
      })
  }
  const runs: RunRecord[] = Array.from({ length: 3000 }, (_, i) => ({ ...pass.runs[2]!, run: i + 1 }))
  return {
    ...regression,
    analysis: { ...regression.analysis!, comparisons: [...regression.analysis!.comparisons, ...comparisons] },
    series,
    runs
  }
}

describe('length cap', () => {
  const s = huge()
  const uncapped = buildReport(s, { maxChars: Infinity })
  const md = buildReport(s)

  test('the uncapped report is far over the limit', () => {
    expect(uncapped.length).toBeGreaterThan(500_000)
  })
  test('capped at 65,000 characters with the verdict line kept and the trim named', () => {
    expect(md.length).toBeLessThanOrEqual(65000)
    expect(md).toContain(verdictLine(s))
    expect(md).toMatch(
      /> \*\*Trimmed\*\* to fit 65,000 characters: \d+ of \d+ raw tables, \d+ per-run charts/
    )
    expect(md).not.toContain('<details>')
    expect(md).not.toContain('```mermaid')
  })
  test('raw tables go before charts', () => {
    // Room for everything but most raw tables: charts stay.
    const withoutRaw = buildReport({ ...pass, runs: pass.runs.slice(0, 4) }, { maxChars: Infinity })
    const capped = buildReport(pass, { maxChars: withoutRaw.length + 400 })
    expect(capped).toContain('```mermaid')
    expect(capped).toMatch(/Trimmed.*raw tables/)
    expect(capped).not.toMatch(/Trimmed.*charts/)
  })
  test('a tiny cap still keeps the verdict', () => {
    const tiny = buildReport(s, { maxChars: 2000 })
    expect(tiny.length).toBeLessThanOrEqual(2000)
    expect(tiny).toContain('**REGRESSION** — matmul kernel_ms')
  })
})
