/**
 * The built CLI (dist/cli.js) as the end-to-end tests run it: one spawner, and the `run --device cpu`
 * command line they share (a local image, the host's Python for the native arm, a small matmul).
 */
import { spawnSync } from 'node:child_process'
import * as path from 'node:path'

export const CLI = path.resolve('dist/cli.js')
/** The host interpreter the native arm runs (Debian's, with NumPy on the reference BLAS). */
export const HOST_PYTHON = '/usr/bin/python3'
export const CLI_TIMEOUT_MS = 300_000

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `node dist/cli.js ARGS` in `cwd` to completion (bounded; the test's environment unless `env`). */
export function runCli(
  args: readonly string[],
  cwd: string,
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}
): CliResult {
  const r = spawnSync('node', [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? CLI_TIMEOUT_MS,
    ...(options.env ? { env: options.env } : {})
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

export interface CpuRunOptions {
  image: string
  out: string
  workloads?: string
  runs: number
  /** Equal to runs for a fixed count (sequential stopping would otherwise go on to max-runs). */
  maxRuns?: number
  /** More flags (`--arms`, `--warmup-runs`, `--matmul-size` …). */
  extra?: readonly string[]
}

/** `run --device cpu --image … --workloads … --runs N [--max-runs M] … --python HOST_PYTHON --out OUT`. */
export function cpuRunArgs(o: CpuRunOptions): string[] {
  return [
    'run',
    '--device',
    'cpu',
    '--image',
    o.image,
    '--workloads',
    o.workloads ?? 'matmul',
    '--runs',
    String(o.runs),
    ...(o.maxRuns === undefined ? [] : ['--max-runs', String(o.maxRuns)]),
    ...(o.extra ?? []),
    '--python',
    HOST_PYTHON,
    '--out',
    o.out
  ]
}
