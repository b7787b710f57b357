/**
 * The mount/OverlayFS check: start the image (by ID) with the io workload's mounts, read mountinfo inside,
 * probe write+fsync/read speeds and the copy-up cost (io-probe.ts), and judge each path (mount-rules.ts).
 * The mounts arrive parsed and judged by the mount policy (config/); the container argv is tools/docker.ts's.
 */
import { bindMounts, imageRefOf, type ImageRef, type IoMountSpec } from '../config/index.js'
import { runContainer } from '../tools/docker.js'
import type { ContainerRuntime, PreflightResult } from '../types/index.js'
import { EnvironmentError, InputError } from '../util/errors.js'
import { inspectImage, runtimeFailure } from './image.js'
import { PROBE_SCRIPT, type ProbeOutput } from './io-probe.js'
import {
  classifyMount,
  coveringMount,
  devOf,
  isReadOnly,
  parseMountinfo,
  type MountInfoEntry
} from './mountinfo.js'
import {
  evaluateMounts,
  ioVerdict,
  type CopyUpReport,
  type IoCheckReport,
  type MountReport
} from './mount-rules.js'

/** Run label value of a stand-alone io-check's probe container. */
const IO_CHECK_LABEL = 'io-check'
const DEFAULT_PROBE_MIB = 64
const MAX_PROBE_MIB = 4096

export interface IoCheckOptions {
  /** The image; a string (a library caller's) is validated here, a parsed reference is used as is. */
  image: ImageRef | string
  runtime: ContainerRuntime
  /** Dataset path: a bind mount or a path inside the image. */
  data?: IoMountSpec | null
  /** Checkpoint path. */
  ckpt?: IoMountSpec | null
  /** Extra container-runtime arguments the workloads get too (e.g. `--tmpfs /scratch`, GPU args). */
  extraDockerArgs?: readonly string[]
  /** The inspected image ID, when the caller already has it (else the image is inspected here). */
  imageId?: string
  /** Run label value (the check id); default `io-check`. */
  label?: string
  /** Called by a check (checkMounts): fixes name the check's settings, not io-check's flags. */
  inCheck?: boolean
  /** Size of the write/read probe per path (MiB). Default 64. */
  probeMiB?: number
}

type Target = { role: 'data' | 'ckpt'; spec: IoMountSpec }

function round(n: number | null, digits = 1): number | null {
  if (n === null || !Number.isFinite(n)) return null
  const f = 10 ** digits
  return Math.round(n * f) / f
}

/** Start the image with the given mounts, read mountinfo inside and probe I/O. */
export async function runIoCheck(opts: IoCheckOptions): Promise<IoCheckReport> {
  const image = imageRefOf(opts.image).ref
  const probeMiB = opts.probeMiB ?? DEFAULT_PROBE_MIB
  if (!Number.isInteger(probeMiB) || probeMiB < 1 || probeMiB > MAX_PROBE_MIB) {
    throw new InputError('probe-mib', probeMiB, `an integer from 1 to ${MAX_PROBE_MIB}`)
  }
  const targets: Target[] = []
  if (opts.data) targets.push({ role: 'data', spec: opts.data })
  if (opts.ckpt) targets.push({ role: 'ckpt', spec: opts.ckpt })
  const out = await probe(opts, image, probeMiB, targets)
  const entries = parseMountinfo(out.mountinfo)
  const mounts = targets.map((t, i) => pathReport(t, out.paths[i], entries))
  if (out.layer) mounts.push(layerReport(out.layer, entries))
  const copyUp: CopyUpReport | null = out.copy_up
    ? {
        file: out.copy_up.file,
        size_mib: round(out.copy_up.size_bytes / 1048576) ?? 0,
        ms: round(out.copy_up.ms, 2),
        baseline_ms: round(out.copy_up.baseline_ms, 2),
        error: out.copy_up.error
      }
    : null
  const results = evaluateMounts(mounts, copyUp, probeMiB, opts.inCheck === true)
  return {
    image,
    runtime: opts.runtime,
    probe_mib: probeMiB,
    mounts,
    copy_up: copyUp,
    results,
    verdict: ioVerdict(results)
  }
}

/** For the run pipeline: the mount rules as preflight results. */
export async function checkMounts(opts: IoCheckOptions): Promise<PreflightResult[]> {
  return (await runIoCheck({ ...opts, inCheck: true })).results
}

/** Runs the probe script in the image (by ID, like the workload containers) and reads its JSON line. */
async function probe(
  opts: IoCheckOptions,
  image: string,
  probeMiB: number,
  targets: readonly Target[]
): Promise<ProbeOutput> {
  const probeArgs = {
    probe_mib: probeMiB,
    // Dataset paths are read-mostly: probe them only when writable and no :ro was asked.
    paths: targets.map(t => ({ path: t.spec.container, probe: t.role === 'ckpt' || !t.spec.readOnly }))
  }
  const imageId = opts.imageId ?? (await inspectImage(image, opts.runtime)).id
  const res = await runContainer(
    opts.runtime,
    {
      image: imageId,
      label: opts.label ?? IO_CHECK_LABEL,
      role: 'probe',
      mounts: bindMounts(targets.map(t => t.spec)),
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
  try {
    return JSON.parse(line ?? '') as ProbeOutput
  } catch {
    throw new EnvironmentError(`io-check probe in ${image} printed no JSON result`)
  }
}

/**
 * What mountinfo says about the mount covering `path` (null fields when nothing covers it). `hostDev`: the device
 * of the host path bound there, when one was asked for (a bind of a host folder on a tmpfs is still a bind).
 */
function coveredBy(
  entries: readonly MountInfoEntry[],
  path: string,
  hostDev: string | null = null
): Pick<MountReport, 'kind' | 'fs_type' | 'read_only' | 'mount_point' | 'source_root'> {
  const cm = coveringMount(entries, path)
  return {
    kind: cm ? classifyMount(cm, hostDev) : null,
    fs_type: cm?.fs_type ?? null,
    read_only: cm ? isReadOnly(cm) : null,
    mount_point: cm?.mount_point ?? null,
    source_root: cm?.root ?? null
  }
}

function pathReport(
  t: Target,
  info: ProbeOutput['paths'][number] | undefined,
  entries: readonly MountInfoEntry[]
): MountReport {
  const mount = coveredBy(
    entries,
    info?.resolved ?? t.spec.container,
    t.spec.kind === 'bind' ? devOf(t.spec.host) : null
  )
  return {
    role: t.role,
    spec: t.spec.spec,
    container_path: t.spec.container,
    exists: info?.exists ?? null,
    kind: mount.kind,
    fs_type: mount.fs_type,
    read_only: mount.read_only,
    requested_read_only: t.spec.kind === 'bind' ? t.spec.readOnly : null,
    mount_point: mount.mount_point,
    source_root: mount.source_root,
    write_mb_s: round(info?.probe?.write_mb_s ?? null),
    read_mb_s: round(info?.probe?.read_mb_s ?? null),
    probe_error: info?.probe?.error ?? null
  }
}

function layerReport(
  layer: NonNullable<ProbeOutput['layer']>,
  entries: readonly MountInfoEntry[]
): MountReport {
  const mount = coveredBy(entries, layer.dir)
  return {
    role: 'writable-layer',
    spec: null,
    container_path: layer.dir,
    exists: true,
    kind: mount.kind,
    fs_type: mount.fs_type,
    read_only: mount.read_only,
    requested_read_only: null,
    mount_point: mount.mount_point,
    source_root: mount.source_root,
    write_mb_s: round(layer.write_mb_s),
    read_mb_s: round(layer.read_mb_s),
    probe_error: layer.error
  }
}
