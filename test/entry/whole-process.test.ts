/**
 * Issue 51, item 4: a command timed by its wall clock (spawn to exit) is reported as what it is, a whole-process
 * time with start-up in it, through the real CLI: its own gated section (not "Steady-state overhead"), the words
 * "start-up included" beside its name in the verdict line, and in the same section what it contains (the
 * per-process difference; the container launch where the candidate is a container) and how to gate the work alone.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { mainInProcess } from '../helpers/main-in-process.js'
import { buildComment, runLinks } from '../../src/report/comment-body.js'
import type { CheckSummary } from '../../src/types/index.js'

let dir = ''
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('a wall-timed command reads as a whole-process time, start-up included, in the report and the comment', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-whole-'))
  const out = path.join(dir, 'out')
  const { code } = await mainInProcess([
    'run',
    '--device',
    'cpu',
    '--arms',
    'native,native',
    '--runs',
    '2',
    '--max-runs',
    '2',
    '--command',
    'boot=/usr/bin/python3 -c pass',
    '--out',
    out
  ])
  expect([0, 1]).toContain(code)
  const report = readFileSync(path.join(out, 'report.md'), 'utf8')
  expect(report).toContain('## Whole-process time (gated, start-up included)')
  expect(report).not.toContain('## Steady-state overhead (gated)')
  expect(report).toMatch(
    /`boot wall_s` is timed from spawn to exit, so each `native#2` process also pays its start-up \([+−][\d.]+ ms per process here/
  )
  const first = report.split('\n')[0] ?? ''
  expect(first).toContain('boot wall_s (whole process, start-up included)')
  const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
  const comment = buildComment(summary, runLinks({}, null))
  expect(comment).toContain('### Whole-process time (gated, start-up included)')
  expect(comment).not.toContain('Steady-state overhead')
}, 120_000)
