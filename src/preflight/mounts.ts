/**
 * The mount/OverlayFS check: start the image (by ID) with the io workload's mounts, read mountinfo inside,
 * probe write+fsync/read speeds and the copy-up cost, and judge each path (evaluateMounts).
 */
import { runContainer } from '../tools/docker.js'
import type { ContainerRuntime, PreflightResult } from '../types/index.js'
import { EnvironmentError, InputError } from '../util/errors.js'
import { validateImageRef } from '../config/index.js'
import { inspectImage, runtimeFailure } from './image.js'
import { PROBE_SCRIPT } from './io-probe.js'
import type { ProbeOutput } from './io-probe.js'
import { classifyMount, coveringMount, isReadOnly, parseMountinfo } from './mountinfo.js'
import type { MountKind } from './mountinfo.js'
import { bindMounts, parseMountSpec, type IoMountSpec } from './mount-spec.js'

export { classifyMount, coveringMount, isReadOnly, parseMountinfo } from './mountinfo.js'
export { bindMounts, mountArgs, parseMountSpec, type IoMountSpec } from './mount-spec.js'
export type { MountInfoEntry, MountKind } from './mountinfo.js'

/** Run label value of a stand-alone io-check's probe container. */
const IO_CHECK_LABEL = 'io-check'

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
  /** The inspected image ID, when the caller already has it (else the image is inspected here). */
  imageId?: string
  /** Run label value (the check id); default `io-check`. */
  label?: string
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
  const specs: { role: 'data' | 'ckpt'; spec: IoMountSpec }[] = []
  if (opts.data) specs.push({ role: 'data', spec: parseMountSpec(opts.data, 'data', { cwd: opts.cwd }) })
  if (opts.ckpt) specs.push({ role: 'ckpt', spec: parseMountSpec(opts.ckpt, 'ckpt', { cwd: opts.cwd }) })

  const probeArgs = {
    probe_mib: probeMiB,
    // Dataset paths are read-mostly: probe them only when writable and no :ro was asked.
    paths: specs.map(s => ({ path: s.spec.container, probe: s.role === 'ckpt' || !s.spec.readOnly }))
  }
  // Run exactly the image the check inspected (by ID), like the workload containers.
  const imageId = opts.imageId ?? (await inspectImage(image, opts.runtime)).id
  const res = await runContainer(
    opts.runtime,
    {
      image: imageId,
      label: opts.label ?? IO_CHECK_LABEL,
      mounts: bindMounts(specs.map(s => s.spec)),
      extraArgs: opts.extraDockerArgs,
      entrypoint: 'python3',
      command: ['-c', PROBE_SCRIPT, JSON.stringify(probeArgs)]
    },
    'mount'
  )
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
