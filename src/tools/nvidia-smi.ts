/**
 * The one module that builds nvidia-smi command lines (argument arrays): GPU queries for preflight and
 * the power limiter, the telemetry loop, compute apps, and setting a power limit. Callers run them with
 * util/exec (time-bounded) or, for the telemetry loop, as a long-lived child.
 */
import { execCapture, type ExecResult } from '../util/exec.js'

export const NVIDIA_SMI = 'nvidia-smi'
/** Machine-readable CSV: no header, no units. */
export const CSV_FORMAT = '--format=csv,noheader,nounits'

export interface QueryGpuOptions {
  /** `--id=i,j`: only these GPU indices. */
  ids?: readonly number[] | null
  /** `-i X`: one GPU by index or UUID. */
  select?: string
  /** `-lms N`: repeat every N ms until killed (the telemetry loop). */
  loopMs?: number
}

/** `--query-gpu=<fields> --format=csv,noheader,nounits [--id=…] [-i X] [-lms N]`. */
export function queryGpuArgs(fields: readonly string[], options: QueryGpuOptions = {}): string[] {
  const args = options.select !== undefined ? ['-i', options.select] : []
  args.push(`--query-gpu=${fields.join(',')}`, CSV_FORMAT)
  if (options.loopMs !== undefined) args.push('-lms', String(options.loopMs))
  if (options.ids) args.push(`--id=${options.ids.join(',')}`)
  return args
}

/** Processes using each GPU: `gpu_uuid,pid,used_memory`. */
export function computeAppsArgs(): string[] {
  return ['--query-compute-apps=gpu_uuid,pid,used_memory', CSV_FORMAT]
}

/** Processes using each GPU with their names: `gpu_uuid,pid,process_name,used_memory` (co-tenants). */
export function computeAppsNamedArgs(): string[] {
  return ['--query-compute-apps=gpu_uuid,pid,process_name,used_memory', CSV_FORMAT]
}

/** `-i X -pl W` (needs root). */
export function setPowerLimitArgs(select: string, watts: number): string[] {
  return ['-i', select, '-pl', String(watts)]
}

/** The human-readable summary (`nvidia-smi`) or full query (`-q`): the only places the driver's CUDA version is. */
export function readableArgs(detail: boolean): string[] {
  return detail ? ['-q'] : []
}

export function runNvidiaSmi(tool: string, args: readonly string[]): Promise<ExecResult> {
  return execCapture(tool, args)
}
