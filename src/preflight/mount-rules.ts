/**
 * The I/O rules of the mount/OverlayFS check (issue 3 of the seeds): what io-check found per path, judged.
 * Pure: the probe (io-check.ts) gathers the facts, these functions turn them into preflight results.
 */
import type { ContainerRuntime, PreflightResult } from '../types/index.js'
import type { MountKind } from './mountinfo.js'
import { setting } from '../util/setting-name.js'

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

export interface CopyUpReport {
  file: string
  size_mib: number
  ms: number | null
  baseline_ms: number | null
  error: string | null
}

export interface IoCheckReport {
  image: string
  runtime: ContainerRuntime
  probe_mib: number
  mounts: MountReport[]
  copy_up: CopyUpReport | null
  results: PreflightResult[]
  verdict: IoVerdict
}

function copyUpNote(copyUp: CopyUpReport | null): string {
  if (!copyUp || copyUp.ms === null) return ''
  return ` (copy-up here: a 1-byte write into a ${copyUp.size_mib} MiB image file took ${copyUp.ms} ms)`
}

/**
 * How a fix names the host folder for a role: io-check's own flags (`--data HOST:CONTAINER:ro`), or, during a
 * check, the setting as the user's entry point spells it (`data-path: …` on the action, `--data-path …` on the CLI).
 */
function mountSetting(role: 'data' | 'ckpt', containerPath: string, inCheck: boolean): string {
  if (inCheck)
    return role === 'data'
      ? `${setting('data-path', '/host/dataset')} (bound read-only at ${containerPath})`
      : `${setting('checkpoint-path', '/host/checkpoints')} (bound at ${containerPath})`
  return role === 'data'
    ? `--data /host/dataset:${containerPath}:ro`
    : `--ckpt /host/checkpoints:${containerPath}`
}

/** The I/O rules, as preflight results; `inCheck`: the fixes name the check's settings, not io-check's flags. Pure. */
export function evaluateMounts(
  mounts: readonly MountReport[],
  copyUp: CopyUpReport | null,
  probeMiB: number,
  inCheck = false
): PreflightResult[] {
  return mounts.map(m => {
    const name = `mounts:${m.role}`
    const details: Record<string, unknown> = { ...m }
    if (m.role === 'writable-layer')
      return { name, ...writableLayer(m, copyUp, probeMiB), details: { ...details, copy_up: copyUp } }
    return { name, ...judgeMount(m, copyUp, inCheck), details }
  })
}

/** A rule's judgement of one path: the result without its name and details. */
type Judged = Pick<PreflightResult, 'status' | 'message' | 'fix'>

/** What one rule needs beside the report: how the path is named, its speed, and the bind-mount fix. */
interface MountWords {
  what: string
  /** The setting or flag that names the host folder (mountSetting). */
  how: string
  speed: string
  bindFix: string
}

function writableLayer(m: MountReport, copyUp: CopyUpReport | null, probeMiB: number): Judged {
  return {
    status: m.probe_error ? 'warn' : 'pass',
    message: m.probe_error
      ? `could not probe the container's writable layer at ${m.container_path}: ${m.probe_error}`
      : `container writable layer (${m.fs_type ?? '?'} at ${m.container_path}): ${probeMiB} MiB write+fsync ` +
        `${m.write_mb_s ?? '?'} MB/s, read ${m.read_mb_s ?? '?'} MB/s${copyUpNote(copyUp)}`,
    fix: m.probe_error ? 'check that the image has a writable /tmp' : null
  }
}

/** A dataset or checkpoint path: the first rule it breaks (failures before warnings), else a pass. */
function judgeMount(m: MountReport, copyUp: CopyUpReport | null, inCheck: boolean): Judged {
  const how = mountSetting(m.role === 'data' ? 'data' : 'ckpt', m.container_path, inCheck)
  const words: MountWords = {
    what: m.role === 'data' ? 'dataset' : 'checkpoint',
    bindFix:
      m.role === 'data'
        ? `bind-mount the dataset from the host: ${how}`
        : `bind-mount a host directory for checkpoints: ${how}`,
    how,
    speed: m.write_mb_s !== null ? `; write+fsync ${m.write_mb_s} MB/s, read ${m.read_mb_s ?? '?'} MB/s` : ''
  }
  return (
    mountFailure(m, copyUp, words) ??
    mountWarning(m, words) ?? {
      status: 'pass',
      message: `${words.what} path ${m.container_path}: ${m.kind} (${m.fs_type}${m.read_only ? ', read-only' : ''})${words.speed}`,
      fix: null
    }
  )
}

function mountFailure(
  m: MountReport,
  copyUp: CopyUpReport | null,
  { what, speed, bindFix, how }: MountWords
): Judged | null {
  if (m.kind === 'overlay')
    return {
      status: 'fail',
      message:
        `${what} path ${m.container_path} lands on the container's OverlayFS layer, not a mount: every write into an ` +
        `image file copies the whole file up first${copyUpNote(copyUp)}, and data is lost with the container${speed}`,
      fix: bindFix
    }
  if (m.role === 'data' && m.requested_read_only === true && m.read_only === false)
    return {
      status: 'fail',
      message: `dataset mount ${m.container_path} is writable although :ro was asked`,
      fix: 'check that no extra runtime argument mounts the same path read-write, and that the runtime honours readonly'
    }
  if (m.role === 'ckpt' && m.read_only === true)
    return {
      status: 'fail',
      message: `checkpoint path ${m.container_path} is read-only: checkpoint writes will fail`,
      fix: `mount it read-write: ${how}`
    }
  return null
}

function mountWarning(m: MountReport, { what, speed, bindFix, how }: MountWords): Judged | null {
  if (m.role === 'ckpt' && m.kind === 'tmpfs')
    return {
      status: 'warn',
      message: `checkpoint path ${m.container_path} is on tmpfs: it uses RAM and is gone when the container exits${speed}`,
      fix: bindFix
    }
  if (m.role === 'data' && m.read_only === false && m.kind !== 'tmpfs')
    return {
      status: 'warn',
      message: `dataset mount ${m.container_path} (${m.kind}, ${m.fs_type}) is writable${speed}`,
      fix: `mount the dataset read-only: ${how}`
    }
  if (m.kind === 'other' || m.kind === null)
    return {
      status: 'warn',
      message: `${what} path ${m.container_path} is on ${m.fs_type ?? 'an unknown filesystem'}, not a bind mount or volume`,
      fix: bindFix
    }
  if (m.role === 'ckpt' && m.probe_error)
    return {
      status: 'warn',
      message: `checkpoint path ${m.container_path} (${m.kind}, ${m.fs_type}) could not be written: ${m.probe_error}`,
      fix: 'make the host directory writable for the container user'
    }
  return null
}

/** io-check's verdict: the worst of its results. */
export function ioVerdict(results: readonly PreflightResult[]): IoVerdict {
  return results.some(r => r.status === 'fail')
    ? 'fail'
    : results.some(r => r.status === 'warn')
      ? 'warn'
      : 'pass'
}
