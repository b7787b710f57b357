/**
 * Longest test files first, from Jest's own timing cache where this checkout has run them, else from the
 * durations recorded on a 2-core machine (test-durations.json beside it, `node scripts/test-durations.mjs`). A clean clone
 * (CI) has no cache: Jest then ordered by file size, and a slow file that started last (the untrusted-tree file,
 * ~100 s) left the other worker idle for a minute and more of the integration lane.
 */
import TestSequencer from '@jest/test-sequencer'
import { readFileSync } from 'node:fs'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '../..')
const RECORDED = JSON.parse(readFileSync(path.join(import.meta.dirname, 'test-durations.json'), 'utf8')).files

export default class RecordedLongestFirst extends (TestSequencer.default ?? TestSequencer) {
  time(test) {
    return super.time(test) ?? RECORDED[path.relative(ROOT, test.path)]
  }
}
