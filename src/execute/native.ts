/** The native arm: the workload script run directly by the host's Python. */
import * as path from 'node:path'
import type { ProcessSpec } from './process-types.js'
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
  /** Turns: the workload waits for "turn" on stdin before each measured iteration (execute/turns.ts). */
  turns?: boolean
}

/** Environment every workload process gets: unbuffered JSON lines, nothing written next to the scripts. */
export const WORKLOAD_ENV = { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } as const
/** What asks a workload to hold after its imports (workloads/_protocol.py, Protocol.hold). */
export const HOLD_ENV = { GPU_OVERHEAD_HOLD: 'stdin' } as const
/** What asks a workload to measure in turns (workloads/_protocol.py, Protocol.take_turn). */
export const TURNS_ENV = { GPU_OVERHEAD_TURNS: 'stdin' } as const

/** The protocol variables of a held or turn-taking process, and the spec fields that keep its stdin open. */
export function stdinProtocol(input: { hold?: boolean; turns?: boolean }): {
  env: Record<string, string>
  spec: { hold?: true; turns?: true }
} {
  return {
    env: { ...(input.hold ? HOLD_ENV : {}), ...(input.turns ? TURNS_ENV : {}) },
    spec: { ...(input.hold ? { hold: true } : {}), ...(input.turns ? { turns: true } : {}) }
  }
}

export function nativeSpec(input: NativeRunInput): ProcessSpec {
  const stdin = stdinProtocol(input)
  return {
    command: input.python,
    args: [path.join(input.workloadsDir, input.script), ...input.args],
    // An allow-list of the runner's environment: never INPUT_*, GITHUB_TOKEN, ACTIONS_* (docs/security.md).
    env: scrubbedEnv(process.env, { ...WORKLOAD_ENV, ...stdin.env, ...input.env }),
    timeoutMs: input.timeoutMs,
    ...stdin.spec
  }
}
