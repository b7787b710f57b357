import type { RunRecord } from '../../src/types/index.js'

/** A measured process that ended well, with no energy or telemetry; `over` sets what a test is about. */
export function runRecord(over: Partial<RunRecord> = {}): RunRecord {
  return {
    workload: 'matmul',
    environment: 'native',
    run: 1,
    warmup: false,
    start_ms: 0,
    end_ms: 1,
    exit_code: 0,
    status: 'ok',
    error: null,
    energy_j: null,
    energy_source: null,
    mean_util_pct: null,
    mean_sm_clock_mhz: null,
    mean_power_w: null,
    throttled_samples: 0,
    telemetry_samples: 0,
    params: {},
    ...over
  }
}
