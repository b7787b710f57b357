/** The native arm: the workload script run directly by the host's Python. */
import * as path from 'node:path'
import type { Workload } from '../types/index.js'
import type { ProcessSpec } from './process.js'

export interface NativeRunInput {
  python: string
  workloadsDir: string
  workload: Workload
  args: string[]
  env: Record<string, string>
  timeoutMs: number
}

/** Environment every workload process gets: unbuffered JSON lines, nothing written next to the scripts. */
export const WORKLOAD_ENV = { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } as const

export function nativeSpec(input: NativeRunInput): ProcessSpec {
  return {
    command: input.python,
    args: [path.join(input.workloadsDir, `${input.workload}.py`), ...input.args],
    env: { ...process.env, ...WORKLOAD_ENV, ...input.env },
    timeoutMs: input.timeoutMs
  }
}
