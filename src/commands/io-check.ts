/** `gpu-overhead io-check`: the mount/OverlayFS check on its own; text or JSON, and the gate's exit code. */
import { exitCodeFor } from '../gate/index.js'
import { runIoCheck, type IoCheckReport } from '../preflight/index.js'
import type { ContainerRuntime } from '../types/index.js'
import { InputError } from '../util/errors.js'
import { allowedMountSpec, validateImageRef } from '../config/index.js'

export function formatIoCheckText(report: IoCheckReport): string {
  const lines = [`io-check ${report.image}: ${report.verdict.toUpperCase()}`]
  const cell = (v: string | number | boolean | null | undefined): string =>
    v === null || v === undefined ? '-' : String(v)
  lines.push('  role            path                      kind     fs       ro     write MB/s  read MB/s')
  for (const m of report.mounts) {
    lines.push(
      `  ${m.role.padEnd(15)} ${m.container_path.padEnd(25)} ${cell(m.kind).padEnd(8)} ${cell(m.fs_type).padEnd(8)} ` +
        `${cell(m.read_only).padEnd(6)} ${cell(m.write_mb_s).padStart(10)} ${cell(m.read_mb_s).padStart(10)}`
    )
  }
  if (report.copy_up) {
    lines.push(
      report.copy_up.ms !== null
        ? `  copy-up: 1-byte write into ${report.copy_up.file} (${report.copy_up.size_mib} MiB) took ${report.copy_up.ms} ms ` +
            `(same write to a new file: ${cell(report.copy_up.baseline_ms)} ms)`
        : `  copy-up: not measured (${report.copy_up.error ?? 'no candidate file'})`
    )
  }
  for (const r of report.results) {
    lines.push(`${r.status.toUpperCase().padEnd(5)} ${r.name}: ${r.message}`)
    if (r.fix) lines.push(`      fix: ${r.fix}`)
  }
  return lines.join('\n')
}

/** `io-check` command logic. Exit 1 when a rule fails. Throws InputError / EnvironmentError (exit 2). */
export async function ioCheckCommand(opts: {
  image: string
  data?: string
  ckpt?: string
  format: 'text' | 'json'
  runtime: ContainerRuntime
  extraDockerArgs?: string[]
  probeMiB?: number
}): Promise<{ text: string; exitCode: number }> {
  if (!opts.data && !opts.ckpt) {
    throw new InputError('data', undefined, 'at least one of --data SPEC or --ckpt SPEC')
  }
  // Parsed once here; the user's host paths go through the mount policy on the resolved path (docs/security.md).
  const image = validateImageRef(opts.image, 'image')
  const report = await runIoCheck({
    ...opts,
    image,
    data: opts.data ? allowedMountSpec(opts.data, 'data', 'data') : null,
    ckpt: opts.ckpt ? allowedMountSpec(opts.ckpt, 'ckpt', 'checkpoint') : null
  })
  const exitCode = exitCodeFor(report.verdict)
  // The JSON report lists mounts once; results keep their message and fix.
  const json = {
    ...report,
    results: report.results.map(r => ({ name: r.name, status: r.status, message: r.message, fix: r.fix })),
    exit_code: exitCode
  }
  const text = opts.format === 'json' ? JSON.stringify(json, null, 2) : formatIoCheckText(report)
  return { text, exitCode }
}
