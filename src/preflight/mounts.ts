import { statSync } from 'node:fs'
import path from 'node:path'
import type { ContainerRuntime, PreflightResult } from '../types/index.js'
import { EnvironmentError, InputError } from '../util/errors.js'
import { execCapture } from '../util/exec.js'
import { validateImageRef } from '../config/index.js'
import { runtimeFailure } from './image.js'
import { PROBE_SCRIPT } from './io-probe.js'
import type { ProbeOutput } from './io-probe.js'
import { classifyMount, coveringMount, isReadOnly, parseMountinfo } from './mountinfo.js'
import type { MountKind } from './mountinfo.js'

export { classifyMount, coveringMount, isReadOnly, parseMountinfo } from './mountinfo.js'
export type { MountInfoEntry, MountKind } from './mountinfo.js'

// ---- Mount specs ----

/** `HOST:CONTAINER[:ro|rw]` (bind mount) or a bare `CONTAINER` path (expected inside the image). */
export type MountSpec =
  | { kind: 'bind'; spec: string; host: string; container: string; readOnly: boolean }
  | { kind: 'image'; spec: string; container: string; readOnly: false }

const SPEC_ALLOWED =
  'HOST:CONTAINER[:ro|:rw] (bind mount of an existing host path) or an absolute CONTAINER path inside the image; ' +
  'paths without commas, colons or control characters'

function badPathChars(p: string): boolean {
  return p === '' || /[,:\p{Cc}]/u.test(p)
}

/** Parse and validate a mount spec. Host paths are resolved to absolute paths and must exist. */
export function parseMountSpec(spec: unknown, inputName: string, options: { cwd?: string } = {}): MountSpec {
  if (typeof spec !== 'string') throw new InputError(inputName, spec, SPEC_ALLOWED)
  const s = spec.trim()
  const parts = s.split(':')
  const containerPath = (p: string | undefined): string => {
    if (p === undefined || badPathChars(p) || !p.startsWith('/'))
      throw new InputError(inputName, spec, SPEC_ALLOWED)
    const norm = path.posix.normalize(p).replace(/\/+$/, '')
    if (norm === '' || norm === '/')
      throw new InputError(inputName, spec, `${SPEC_ALLOWED}; not the container root`)
    return norm
  }
  if (parts.length === 1)
    return { kind: 'image', spec: s, container: containerPath(parts[0]), readOnly: false }
  if (parts.length > 3) throw new InputError(inputName, spec, SPEC_ALLOWED)
  const [host, container, mode] = parts
  if (mode !== undefined && mode !== 'ro' && mode !== 'rw')
    throw new InputError(inputName, spec, SPEC_ALLOWED)
  if (host === undefined || badPathChars(host)) throw new InputError(inputName, spec, SPEC_ALLOWED)
  const hostAbs = path.resolve(options.cwd ?? process.cwd(), host)
  try {
    statSync(hostAbs)
  } catch {
    throw new InputError(inputName, spec, `${SPEC_ALLOWED}; host path ${hostAbs} does not exist`)
  }
  return {
    kind: 'bind',
    spec: s,
    host: hostAbs,
    container: containerPath(container),
    readOnly: mode === 'ro'
  }
}

/** Container-runtime arguments for the specs (bind mounts only; image paths need none). */
export function mountArgs(specs: readonly MountSpec[]): string[] {
  const args: string[] = []
  for (const m of specs) {
    if (m.kind !== 'bind') continue
    args.push(
      '--mount',
      `type=bind,source=${m.host},target=${m.container}${m.readOnly ? ',readonly=true' : ''}`
    )
  }
  return args
}

// ---- Report ----

export type MountRole = 'data' | 'ckpt' | 'writable-layer'

export interface MountReport {
  role: MountRole
  spec: string | null
  container_path: string
  exists: boolean | null
  kind: MountKind | null
  fs_type: string | null
  read_only: boolean | null
  requested_read_only: boolean | null
  mount_point: string | null
  /** mountinfo root: the host-side path of a bind mount within its filesystem. */
  source_root: string | null
  write_mb_s: number | null
  read_mb_s: number | null
  probe_error: string | null
}

export type IoVerdict = 'pass' | 'warn' | 'fail'

export interface IoCheckReport {
  image: string
  runtime: ContainerRuntime
  probe_mib: number
  mounts: MountReport[]
  copy_up: {
    file: string
    size_mib: number
    ms: number | null
    baseline_ms: number | null
    error: string | null
  } | null
  results: PreflightResult[]
  verdict: IoVerdict
}

export interface IoCheckOptions {
  image: string
  runtime: ContainerRuntime
  /** Dataset SPEC. */
  data?: string | null
  /** Checkpoint SPEC. */
  ckpt?: string | null
  /** Extra container-runtime arguments the workloads get too (e.g. `--tmpfs /scratch`, GPU args). */
  extraDockerArgs?: readonly string[]
  /** Size of the write/read probe per path (MiB). Default 64. */
  probeMiB?: number
  cwd?: string
}

function round(n: number | null, digits = 1): number | null {
  if (n === null || !Number.isFinite(n)) return null
  const f = 10 ** digits
  return Math.round(n * f) / f
}

/** Start the image with the given mounts, read mountinfo inside and probe I/O. */
export async function runIoCheck(opts: IoCheckOptions): Promise<IoCheckReport> {
  const image = validateImageRef(opts.image, 'image').ref
  const probeMiB = opts.probeMiB ?? 64
  if (!Number.isInteger(probeMiB) || probeMiB < 1 || probeMiB > 4096) {
    throw new InputError('probe-mib', probeMiB, 'an integer from 1 to 4096')
  }
  const specs: { role: 'data' | 'ckpt'; spec: MountSpec }[] = []
  if (opts.data) specs.push({ role: 'data', spec: parseMountSpec(opts.data, 'data', { cwd: opts.cwd }) })
  if (opts.ckpt) specs.push({ role: 'ckpt', spec: parseMountSpec(opts.ckpt, 'ckpt', { cwd: opts.cwd }) })

  const probeArgs = {
    probe_mib: probeMiB,
    // Dataset paths are read-mostly: probe them only when writable and no :ro was asked.
    paths: specs.map(s => ({ path: s.spec.container, probe: s.role === 'ckpt' || !s.spec.readOnly }))
  }
  const args = [
    'run',
    '--rm',
    '--network',
    'none',
    ...mountArgs(specs.map(s => s.spec)),
    ...(opts.extraDockerArgs ?? []),
    '--entrypoint',
    'python3',
    image,
    '-c',
    PROBE_SCRIPT,
    JSON.stringify(probeArgs)
  ]
  const res = await execCapture(opts.runtime, args)
  const failure = runtimeFailure(opts.runtime, res)
  if (failure) throw failure
  if (res.exitCode !== 0) {
    const why = res.stderr.trim().split('\n').slice(-1)[0] ?? ''
    const hint = /executable file not found|python3.*not found|no such file or directory/i.test(res.stderr)
      ? '; the image needs python3 (the workloads need it too)'
      : /No such image|pull access denied|not found: manifest unknown/i.test(res.stderr)
        ? '; build, load or pull the image first'
        : ''
    throw new EnvironmentError(`io-check container in ${image} failed (exit ${res.exitCode}): ${why}${hint}`)
  }
  const line = res.stdout
    .trim()
    .split('\n')
    .reverse()
    .find(l => l.startsWith('{'))
  let out: ProbeOutput
  try {
    out = JSON.parse(line ?? '') as ProbeOutput
  } catch {
    throw new EnvironmentError(`io-check probe in ${image} printed no JSON result`)
  }

  const entries = parseMountinfo(out.mountinfo)
  const mounts: MountReport[] = specs.map((s, i) => {
    const info = out.paths[i]
    const cm = coveringMount(entries, info?.resolved ?? s.spec.container)
    return {
      role: s.role,
      spec: s.spec.spec,
      container_path: s.spec.container,
      exists: info?.exists ?? null,
      kind: cm ? classifyMount(cm) : null,
      fs_type: cm?.fs_type ?? null,
      read_only: cm ? isReadOnly(cm) : null,
      requested_read_only: s.spec.kind === 'bind' ? s.spec.readOnly : null,
      mount_point: cm?.mount_point ?? null,
      source_root: cm?.root ?? null,
      write_mb_s: round(info?.probe?.write_mb_s ?? null),
      read_mb_s: round(info?.probe?.read_mb_s ?? null),
      probe_error: info?.probe?.error ?? null
    }
  })
  if (out.layer) {
    const cm = coveringMount(entries, out.layer.dir)
    mounts.push({
      role: 'writable-layer',
      spec: null,
      container_path: out.layer.dir,
      exists: true,
      kind: cm ? classifyMount(cm) : null,
      fs_type: cm?.fs_type ?? null,
      read_only: cm ? isReadOnly(cm) : null,
      requested_read_only: null,
      mount_point: cm?.mount_point ?? null,
      source_root: cm?.root ?? null,
      write_mb_s: round(out.layer.write_mb_s),
      read_mb_s: round(out.layer.read_mb_s),
      probe_error: out.layer.error
    })
  }
  const copyUp = out.copy_up
    ? {
        file: out.copy_up.file,
        size_mib: round(out.copy_up.size_bytes / 1048576) ?? 0,
        ms: round(out.copy_up.ms, 2),
        baseline_ms: round(out.copy_up.baseline_ms, 2),
        error: out.copy_up.error
      }
    : null
  const results = evaluateMounts(mounts, copyUp, probeMiB)
  const verdict: IoVerdict = results.some(r => r.status === 'fail')
    ? 'fail'
    : results.some(r => r.status === 'warn')
      ? 'warn'
      : 'pass'
  return { image, runtime: opts.runtime, probe_mib: probeMiB, mounts, copy_up: copyUp, results, verdict }
}

function copyUpNote(copyUp: IoCheckReport['copy_up']): string {
  if (!copyUp || copyUp.ms === null) return ''
  return ` (copy-up here: a 1-byte write into a ${copyUp.size_mib} MiB image file took ${copyUp.ms} ms)`
}

/** The I/O rules, as preflight results. Pure. */
export function evaluateMounts(
  mounts: readonly MountReport[],
  copyUp: IoCheckReport['copy_up'],
  probeMiB: number
): PreflightResult[] {
  const results: PreflightResult[] = []
  for (const m of mounts) {
    const name = `mounts:${m.role}`
    const details: Record<string, unknown> = { ...m }
    const what = m.role === 'data' ? 'dataset' : 'checkpoint'
    if (m.role === 'writable-layer') {
      results.push({
        name,
        status: m.probe_error ? 'warn' : 'pass',
        message: m.probe_error
          ? `could not probe the container's writable layer at ${m.container_path}: ${m.probe_error}`
          : `container writable layer (${m.fs_type ?? '?'} at ${m.container_path}): ${probeMiB} MiB write+fsync ` +
            `${m.write_mb_s ?? '?'} MB/s, read ${m.read_mb_s ?? '?'} MB/s${copyUpNote(copyUp)}`,
        fix: m.probe_error ? 'check that the image has a writable /tmp' : null,
        details: { ...details, copy_up: copyUp }
      })
      continue
    }
    const bindFix =
      m.role === 'data'
        ? `bind-mount the dataset from the host: --data /host/dataset:${m.container_path}:ro`
        : `bind-mount a host directory for checkpoints: --ckpt /host/checkpoints:${m.container_path}`
    const speed =
      m.write_mb_s !== null ? `; write+fsync ${m.write_mb_s} MB/s, read ${m.read_mb_s ?? '?'} MB/s` : ''
    if (m.kind === 'overlay') {
      results.push({
        name,
        status: 'fail',
        message:
          `${what} path ${m.container_path} lands on the container's OverlayFS layer, not a mount: every write into an ` +
          `image file copies the whole file up first${copyUpNote(copyUp)}, and data is lost with the container${speed}`,
        fix: bindFix,
        details
      })
    } else if (m.role === 'data' && m.requested_read_only === true && m.read_only === false) {
      results.push({
        name,
        status: 'fail',
        message: `dataset mount ${m.container_path} is writable although :ro was asked`,
        fix: 'check that no extra runtime argument mounts the same path read-write, and that the runtime honours readonly',
        details
      })
    } else if (m.role === 'ckpt' && m.read_only === true) {
      results.push({
        name,
        status: 'fail',
        message: `checkpoint path ${m.container_path} is read-only: checkpoint writes will fail`,
        fix: `mount it read-write: --ckpt /host/checkpoints:${m.container_path}`,
        details
      })
    } else if (m.role === 'ckpt' && m.kind === 'tmpfs') {
      results.push({
        name,
        status: 'warn',
        message: `checkpoint path ${m.container_path} is on tmpfs: it uses RAM and is gone when the container exits${speed}`,
        fix: bindFix,
        details
      })
    } else if (m.role === 'data' && m.read_only === false && m.kind !== 'tmpfs') {
      results.push({
        name,
        status: 'warn',
        message: `dataset mount ${m.container_path} (${m.kind}, ${m.fs_type}) is writable${speed}`,
        fix: `mount the dataset read-only: --data /host/dataset:${m.container_path}:ro`,
        details
      })
    } else if (m.kind === 'other' || m.kind === null) {
      results.push({
        name,
        status: 'warn',
        message: `${what} path ${m.container_path} is on ${m.fs_type ?? 'an unknown filesystem'}, not a bind mount or volume`,
        fix: bindFix,
        details
      })
    } else if (m.role === 'ckpt' && m.probe_error) {
      results.push({
        name,
        status: 'warn',
        message: `checkpoint path ${m.container_path} (${m.kind}, ${m.fs_type}) could not be written: ${m.probe_error}`,
        fix: 'make the host directory writable for the container user',
        details
      })
    } else {
      results.push({
        name,
        status: 'pass',
        message: `${what} path ${m.container_path}: ${m.kind} (${m.fs_type}${m.read_only ? ', read-only' : ''})${speed}`,
        fix: null,
        details
      })
    }
  }
  return results
}

/** For the run pipeline: the mount rules as preflight results. */
export async function checkMounts(opts: IoCheckOptions): Promise<PreflightResult[]> {
  return (await runIoCheck(opts)).results
}

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
    throw new InputError('data', opts.data, 'at least one of --data SPEC or --ckpt SPEC')
  }
  const report = await runIoCheck(opts)
  const exitCode = report.verdict === 'fail' ? 1 : 0
  // The JSON report lists mounts once; results keep their message and fix.
  const json = {
    ...report,
    results: report.results.map(r => ({ name: r.name, status: r.status, message: r.message, fix: r.fix })),
    exit_code: exitCode
  }
  const text = opts.format === 'json' ? JSON.stringify(json, null, 2) : formatIoCheckText(report)
  return { text, exitCode }
}
