/** The native arm: the workload script run directly by the host's Python. */
import * as path from 'node:path'
import type { ProcessSpec } from './process.js'
import { scrubbedEnv } from '../util/child-env.js'

export interface NativeRunInput {
  python: string
  workloadsDir: string
  /** The built-in's script in the workloads folder (its definition's start). */
  script: string
  args: string[]
  env: Record<string, string>
  timeoutMs: number
  /** Prestart: the workload imports, then waits for "go" on stdin before any device work. */
  hold?: boolean
}

/** Environment every workload process gets: unbuffered JSON lines, nothing written next to the scripts. */
export const WORKLOAD_ENV = { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } as const
/** What asks a workload to hold after its imports (workloads/_protocol.py, Protocol.hold). */
export const HOLD_ENV = { GPU_OVERHEAD_HOLD: 'stdin' } as const

export function nativeSpec(input: NativeRunInput): ProcessSpec {
  return {
    command: input.python,
    args: [path.join(input.workloadsDir, input.script), ...input.args],
    // An allow-list of the runner's environment: never INPUT_*, GITHUB_TOKEN, ACTIONS_* (docs/security.md).
    env: scrubbedEnv(process.env, { ...WORKLOAD_ENV, ...(input.hold ? HOLD_ENV : {}), ...input.env }),
    timeoutMs: input.timeoutMs,
    ...(input.hold ? { hold: true } : {})
  }
}
