/**
 * Does the image carry CUDA forward-compatibility libraries, and of which driver? nvidia/cuda images from 12.5.1 on
 * (and the rpm-based ones) install `cuda-compat` without saying so in their ENV, so the libraries themselves are
 * looked for: a short probe container (no network, bounded in time and output) lists
 * `/usr/local/cuda*\/compat/**\/libcuda.so.X.Y[.Z]` — the toolkit's enable-cuda-compat hook globs
 * `libcuda.so.*.*` in the compat folder and reads the driver version from the name.
 */
import type { ContainerRuntime } from '../types/index.js'
import { killContainer, runContainer } from '../tools/docker.js'
import { must } from '../util/must.js'
import { compareVersions, meetsRow, parseVersion, tableEntry } from './cuda-compat.js'

/** The probe starts the image's filesystem only; a cold NGC image can take a while to start. */
export const COMPAT_PROBE_TIMEOUT_MS = 60_000
/** Lines of the listing read: a compat folder holds a handful of files. */
const MAX_LINES = 200
/** A compat libcuda path; the listing comes from the (untrusted) image, so anything else is dropped. */
const LIBCUDA =
  /^\/usr\/local\/cuda[\w.+-]*\/compat\/(?:[\w.+-]+\/){0,2}libcuda\.so\.(\d{1,6}(?:\.\d{1,6}){1,3})$/

export interface CompatProbe {
  /** `found`/`none`: the listing ran; `failed`: it could not (no `find` in the image, engine error, time-out). */
  status: 'found' | 'none' | 'failed'
  /** The compat libcuda files found (container paths). */
  libs: string[]
  /** Their driver versions, distinct, highest first (`580.82.07`). */
  versions: string[]
  /** Why the probe failed, for the report. */
  error: string | null
}

/** `find` arguments: compat libcuda files under /usr/local/cuda*, without following the `cuda` symlink twice. */
export function compatProbeCommand(): string[] {
  return [
    '/usr/local',
    '-maxdepth',
    '4',
    '-path',
    '/usr/local/cuda*/compat/*',
    '-name',
    'libcuda.so.*.*',
    '-print'
  ]
}

/** The listing → the versions of the compat libcuda files (bounded: the first MAX_LINES lines). */
export function parseCompatListing(stdout: string): { libs: string[]; versions: string[] } {
  const libs = stdout
    .split('\n', MAX_LINES)
    .map(l => l.trim())
    .filter(l => LIBCUDA.test(l))
  const versions = [
    ...new Set(libs.map(l => must(LIBCUDA.exec(l)?.[1], 'every lib kept matched LIBCUDA')))
  ].sort((a, b) => compareVersions(b, a))
  return { libs, versions }
}

/**
 * Whether the compat libraries can change the driver gate's verdict: only when the host driver is below the
 * table's entry for the image's CUDA (its release driver, or the branch the notes give) or the table does not know
 * it, since they are used only on older drivers.
 */
export function compatProbeMatters(cuda: string | null, driver: string | null): boolean {
  if (cuda === null || driver === null || parseVersion(cuda) === null || parseVersion(driver) === null)
    return false
  const entry = tableEntry(cuda)
  return entry === null || !meetsRow(driver, entry)
}

/** Run label of a probe started outside a check (gpu-overhead gate). */
export const COMPAT_PROBE_LABEL = 'compat-probe'

/**
 * Run the probe on an inspected image (by its ID, which cannot move), labelled with the check id so a cancel
 * removes it too. Never throws: a failure is reported.
 */
export async function probeCompatLibs(
  imageId: string,
  runtime: ContainerRuntime,
  label: string = COMPAT_PROBE_LABEL
): Promise<CompatProbe> {
  const name = `gpu-overhead-compat-probe-${process.pid}-${Date.now()}`
  try {
    const res = await runContainer(
      runtime,
      { image: imageId, name, label, role: 'probe', entrypoint: 'find', command: compatProbeCommand() },
      'volume',
      { timeoutMs: COMPAT_PROBE_TIMEOUT_MS }
    )
    // The client was killed at the time limit; the container (--rm) goes when it is killed.
    if (res.timedOut) await killContainer(runtime, name)
    // find exits 1 when a path is missing or unreadable but still prints what it found; 124: timed out,
    // 125-127: the container did not run.
    if (res.exitCode === 1 && res.stdout.trim() === '' && /No such file or directory/.test(res.stderr))
      return { status: 'none', libs: [], versions: [], error: null }
    if (res.exitCode >= 124 || (res.exitCode !== 0 && res.stdout.trim() === '')) {
      const why = (res.stderr.trim().split('\n')[0] ?? '').slice(0, 300)
      return {
        status: 'failed',
        libs: [],
        versions: [],
        error: `exit ${res.exitCode}${why ? `: ${why}` : ''}`
      }
    }
    const { libs, versions } = parseCompatListing(res.stdout)
    return { status: libs.length > 0 ? 'found' : 'none', libs, versions, error: null }
  } catch (error) {
    return { status: 'failed', libs: [], versions: [], error: String(error).slice(0, 300) }
  }
}
