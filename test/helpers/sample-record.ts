import type { SampleRecord } from '../../src/types/index.js'

/** One steady-state sample of matmul kernel_ms (lower is better); `over` sets what a test is about. */
export function sampleRecord(over: Partial<SampleRecord> = {}): SampleRecord {
  return {
    check_id: 'test',
    workload: 'matmul',
    environment: 'native',
    run: 1,
    iteration: 1,
    metric: 'kernel_ms',
    value: 1,
    unit: 'ms',
    better: 'lower',
    scope: 'steady',
    time: '',
    params: {},
    fingerprint: {},
    ...over
  } as SampleRecord
}
