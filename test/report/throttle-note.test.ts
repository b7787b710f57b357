/**
 * An undecided metric whose processes ran on a throttling GPU says so beside its verdict: from the summary a
 * real H100 check wrote (2026-12-06, modes-same image, the identical image; that GPU reached 80 °C and throttled
 * in ~30% of the matmul regions' samples in both arms, so matmul stayed inconclusive at +0.16% [−2.30, +2.42]).
 */
import * as fs from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { buildReport } from '../../src/report/index.js'
import type { CheckSummary } from '../../src/types/index.js'

const hot = JSON.parse(
  gunzipSync(
    fs.readFileSync(new URL('../__fixtures__/summaries/h100-throttled-modes-same.json.gz', import.meta.url))
  ).toString('utf8')
) as CheckSummary

const matmulNote = (md: string): string =>
  md.split('\n').find(l => l.startsWith('- `matmul kernel_ms` inconclusive')) ?? ''

test("the inconclusive matmul names the throttled samples of both arms and the GPU's reasons", () => {
  const note = matmulNote(buildReport(hot))
  expect(note).toContain('smallest detectable effect 1.72% at 10+10 runs')
  expect(note).toContain(
    'The GPU was throttled in 32 of 110 (`native`) and 33 of 108 (`container`) telemetry samples'
  )
  expect(note).toContain('HwSlowdown, HwThermalSlowdown, SwPowerCap, SwThermalSlowdown')
})

test('a GPU that throttled in fewer than 5% of the region samples is not named', () => {
  const cool: CheckSummary = {
    ...hot,
    telemetry: hot.telemetry.map(t =>
      t.region ? { ...t, region: { ...t.region, throttled_samples: 5 } } : t
    )
  }
  const note = matmulNote(buildReport(cool))
  expect(note).toContain('smallest detectable effect')
  expect(note).not.toContain('throttled')
})
