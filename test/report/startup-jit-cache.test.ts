/**
 * Issue 52: the start-up section says what a fresh container pays that the check did not repeat (the CUDA JIT
 * cache it keeps for a container arm), from the summary a real H100 check wrote (2026-12-06, modes-same image,
 * scripts/gpu-host/e2e-modes.sh).
 */
import * as fs from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { buildReport } from '../../src/report/index.js'
import type { CheckSummary } from '../../src/types/index.js'

const recorded = JSON.parse(
  gunzipSync(
    fs.readFileSync(new URL('../__fixtures__/jit-cache/h100-modes-same-summary.json.gz', import.meta.url))
  ).toString('utf8')
) as CheckSummary

function startupSection(md: string): string {
  const from = md.indexOf('## Start-up vs steady state')
  expect(from).toBeGreaterThanOrEqual(0)
  const to = md.indexOf('\n## ', from + 3)
  return md.slice(from, to < 0 ? undefined : to)
}

test("the start-up section names the first container process's JIT compile, its cost and the fix", () => {
  const section = startupSection(buildReport(recorded))
  expect(section).toContain('**CUDA JIT cache of a fresh container (llm)**')
  expect(section).toContain('container run 1 started with an empty CUDA JIT cache')
  expect(section).toMatch(/took 3\.23 s against 2\.33 s \(median\) for its 9 later process\(es\)/)
  expect(section).toContain('Fix: mount a persistent volume at CUDA_CACHE_PATH')
  // Under the llm's table, before io's.
  const line = section.indexOf('**CUDA JIT cache of a fresh container (llm)**')
  expect(line).toBeGreaterThan(section.indexOf('**llm**'))
  expect(line).toBeLessThan(section.indexOf('**io**'))
})

test('a check whose first container process compiled nothing says nothing of it', () => {
  const none: CheckSummary = {
    ...recorded,
    explanation: recorded.explanation && {
      ...recorded.explanation,
      findings: recorded.explanation.findings.filter(f => !f.key.endsWith(':jit-cache'))
    }
  }
  expect(startupSection(buildReport(none))).not.toContain('JIT cache of a fresh container')
})
