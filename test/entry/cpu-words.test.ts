/**
 * Issue 51, item 6: a CPU check speaks of the host it ran on, never of GPUs, decode states or the duet, through the
 * real CLI: its progress output, report.md and the PR comment built from its summary.json.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { mainInProcess } from '../helpers/main-in-process.js'
import { buildComment, runLinks } from '../../src/report/comment-body.js'
import type { CheckSummary } from '../../src/types/index.js'
import { intervalReviver } from '../../src/util/json-intervals.js'

let dir = ''
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('a --device cpu check names no GPU, CUDA, decode state or duet in its progress, report and comment, except what it skipped', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-cpu-words-'))
  const out = path.join(dir, 'out')
  const { code, stderr: progress } = await mainInProcess([
    'run',
    '--device',
    'cpu',
    '--arms',
    'native,native',
    '--workloads',
    'matmul',
    '--matmul-size',
    '64',
    '--runs',
    '3',
    '--max-runs',
    '3',
    '--python',
    '/usr/bin/python3',
    '--out',
    out
  ])
  expect([0, 1]).toContain(code)
  expect(progress).toContain('[1/')
  const report = readFileSync(path.join(out, 'report.md'), 'utf8')
  const summary = JSON.parse(
    readFileSync(path.join(out, 'summary.json'), 'utf8'),
    intervalReviver
  ) as CheckSummary
  const comment = buildComment(summary, runLinks({}, null))
  // The check's own words: progress, the comment, the warnings and notes, and the whole report, its fixed
  // sections ("How to read this", start-up, why) included. Only "Not measured" may name what a CPU check skipped.
  const notes = [...summary.warnings, ...(summary.analysis?.notes ?? [])].join('\n')
  const skipped = /^## Not measured\n[\s\S]*?(?=^## )/m
  expect(report).toMatch(skipped)
  expect(report.match(skipped)?.[0]).toContain('GPU work')
  const reportWords = report.replace(skipped, '')
  for (const [what, text] of Object.entries({ progress, comment, notes, report: reportWords }))
    expect(
      `${what}: ${(text.match(/.{0,60}(\bGPUs?\b|\bCUDA\b|[Dd]ecode|\bduet\b).{0,60}/g) ?? []).join(' | ')}`
    ).toBe(`${what}: `)
})
