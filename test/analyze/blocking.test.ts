/**
 * Blocked pooling when the blocks ran the arms unequally often: a duet check stopped after an odd number of
 * blocks leaves one GPU with three native runs and two container runs and the other GPU the other way round.
 */
import { median } from 'simple-statistics'
import { blockScaled } from '../../src/results/blocking.js'
import type { Fingerprint } from '../../src/types/index.js'

interface Row {
  workload: string
  environment: string
  metric: string
  value: number
  params: Record<string, unknown>
  fingerprint: Fingerprint
  gpu: number
}
const row = (environment: string, gpu: number, value: number): Row => ({
  workload: 'w',
  environment,
  metric: 'kernel_ms',
  value,
  params: {},
  fingerprint: { gpu_uuid: `GPU-${gpu}` } as Fingerprint,
  gpu
})
const ratio = (rows: readonly Row[]): number =>
  median(rows.filter(r => r.environment === 'container').map(r => r.value)) /
  median(rows.filter(r => r.environment === 'native').map(r => r.value))

describe('blockScaled', () => {
  it('keeps a +5% overhead when the GPUs ran the arms 3:2 and 2:3 (GPU 1 is 2% slower)', () => {
    const rows = [
      ...[100, 100.1, 99.9].map(v => row('native', 0, v)),
      ...[105, 105.1].map(v => row('container', 0, v)),
      ...[102, 102.1].map(v => row('native', 1, v)),
      ...[107.1, 107.2, 107.0].map(v => row('container', 1, v))
    ]
    const scaled = blockScaled(rows, r => String(r.gpu))
    expect(ratio(scaled)).toBeGreaterThan(1.045)
    expect(ratio(scaled)).toBeLessThan(1.055)
    // The GPUs' 2% offset is gone: each arm's medians agree across the GPUs within 0.3%.
    for (const env of ['native', 'container']) {
      const m = [0, 1].map(g =>
        median(scaled.filter(r => r.environment === env && r.gpu === g).map(r => r.value))
      )
      expect(Math.abs(m[0]! / m[1]! - 1)).toBeLessThan(0.003)
    }
  })

  it('leaves balanced blocks as the per-block median rule did, and a block without every arm untouched', () => {
    const rows = [
      ...[100, 101].map(v => row('native', 0, v)),
      ...[105, 106].map(v => row('container', 0, v)),
      ...[110, 111].map(v => row('native', 1, v)),
      ...[115.5, 116.6].map(v => row('container', 1, v)),
      row('native', 2, 500)
    ]
    const scaled = blockScaled(rows, r => String(r.gpu))
    expect(scaled.find(r => r.gpu === 2)!.value).toBe(500)
    expect(scaled.filter(r => r.gpu !== 2).every(r => r.fingerprint.gpu_uuid === null)).toBe(true)
    const m = [0, 1].map(g => median(scaled.filter(r => r.gpu === g).map(r => r.value)))
    expect(m[0]! / m[1]!).toBeCloseTo(1, 2)
  })
})
