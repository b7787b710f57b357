/** The report over a real check's summary (H200, docs/evidence/2026-11-22-h200/default-check-2). */
import * as fs from 'node:fs'
import { buildReport } from '../../src/report/markdown.js'
import type { CheckSummary } from '../../src/types/index.js'

const summary = JSON.parse(
  fs.readFileSync('test/__fixtures__/evidence/2026-11-22-h200/default-check-2/summary.json', 'utf8')
) as CheckSummary
const md = buildReport(summary, { maxChars: Infinity })
const section = (title: string): string => {
  const start = md.indexOf(`## ${title}`)
  expect(start).toBeGreaterThanOrEqual(0)
  const next = md.indexOf('\n## ', start + 3)
  return md.slice(start, next === -1 ? undefined : next)
}

test('verdict line first, and the cancelled check says so', () => {
  expect(md.split('\n')[0]).toMatch(/^\*\*INCOMPLETE\*\* — the check was cancelled/)
})

test('writable-layer metrics are informational, never in the gated table', () => {
  const gated = section('Steady-state overhead (gated)')
  const info = section('Writable layer (OverlayFS tax, informational)')
  for (const m of [
    'copyup_ms@1MiB',
    'copyup_ms@16MiB',
    'copyup_ms@128MiB',
    'scratch_write_mb_s',
    'small_files_ops_s'
  ]) {
    expect(info).toContain(m)
    expect(gated).not.toContain(m)
  }
  expect(gated).toContain('ckpt_write_mb_s')
  expect(gated).toContain('data_read_mb_s')
})

test('start-up phases in pipeline order, with means and the overhead analyze reports', () => {
  const s = section('Start-up vs steady state')
  const order = [
    'Container/process launch',
    'Interpreter start',
    'Imports',
    'CUDA/device init',
    'First kernel'
  ]
  const at = order.map(label => s.indexOf(label))
  expect(at.every(i => i >= 0)).toBe(true)
  expect([...at].sort((a, b) => a - b)).toEqual(at)
  // Interpreter start: mean 55.9 ms native vs 168 ms container in this run → +201% [+150, +263] (ratio of
  // the means shown, with its CI — the same figure `analyze` gives for it).
  expect(s).toMatch(
    /Interpreter start\s*\|\s*55\.9 ms\s*\|\s*168 ms\s*\|\s*\+112 ms\s*\|\s*\+201% \[\+150, \+263\]/
  )
})
