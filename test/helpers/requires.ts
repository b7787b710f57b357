/**
 * Tests that need a real tool (podman, a root dockerd): `describe` where it is here, `describe.skip` with a
 * line on stderr where it is not — except on CI (CI=true), whose .ci/run installs it: there a missing tool
 * is an error, so the test cannot be skipped silently.
 *
 * A tool that is installed but cannot work on this host (podman whose OCI runtime refuses every container, such
 * as crun on hybrid cgroups) is a property of the host, not a missing package: where the product's own preflight
 * names that cause with its fix (src/preflight/container-init.ts `startRefusal`), the test is skipped with a loud
 * line on CI too — a fresh Debian CI machine may have hybrid cgroups, and the product handles them at runtime.
 * Any other failure of the trial is an error on CI (someone must look: a new host problem the product should
 * name, or a broken test image).
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { startRefusal } from '../../src/preflight/container-init.js'

/**
 * Whether `podman` answers on this environment's PATH. The environment is passed explicitly: child_process's default
 * is the host process's own, not the one a test sets (Jest gives each test file a `process.env` of its own), so a
 * fake `podman` a test puts on PATH would be missed and the host's podman, or its absence, asked instead.
 */
const podmanInstalled = (env: NodeJS.ProcessEnv = process.env): boolean =>
  spawnSync('podman', ['--version'], { encoding: 'utf8', env, timeout: 30_000 }).status === 0
export const hasPodman = podmanInstalled()

/** Whether a tool can serve a test here; when not, why, in one line. */
export interface Availability {
  ok: boolean
  /** One line: what is missing, or the tool's first line of complaint. */
  why: string
  /** Installed, but this host cannot run it, for a cause the product names at runtime: skipped on CI too. */
  hostLimit: boolean
}

/** A trial container start: a cold podman takes a few seconds; a hung one is killed after this. */
export const TRIAL_TIMEOUT_MS = 60_000

/** `'…'` for sh (the image reference and the command are the test's own; quoted all the same). */
const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** The first line that says something (bounded). */
/** The line that says why: podman's `Error:` line, else the first that is not a warning (Podman 5 warns first). */
function firstLine(text: string): string {
  const lines = text.split('\n').filter(l => l.trim() !== '')
  const line =
    lines.find(l => /^Error\b/.test(l.trim())) ??
    lines.find(l => !/level=warning|^WARN/i.test(l)) ??
    lines[0] ??
    ''
  return line.trim().slice(0, 300)
}

/**
 * Can podman start a container of `image` here? One trial `podman run` of that local image (`--pull=never`: nothing
 * is pulled; `--network none`), rootful or, with `user`, as that user (`su`), under `timeout`, which kills the
 * whole process group when it runs past TRIAL_TIMEOUT_MS (a left container is removed by its name). The image must
 * exist for that podman (the test builds or loads it first); it runs `python3 -c 'import numpy'`, what the tests need.
 */
export function podmanRuns(
  image: string,
  options: { user?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}
): Availability {
  if (!podmanInstalled(options.env ?? process.env))
    return { ok: false, why: 'podman is not installed', hostLimit: false }
  const timeoutMs = options.timeoutMs ?? TRIAL_TIMEOUT_MS
  const name = `gpu-overhead-trial-${randomBytes(6).toString('hex')}`
  const run = [
    'timeout',
    '--kill-after=5',
    `${Math.ceil(timeoutMs / 1000)}`,
    'podman',
    'run',
    '--rm',
    '--pull=never',
    '--network',
    'none',
    '--name',
    name,
    image,
    'python3',
    '-c',
    'import numpy'
  ]
  const exec = (argv: string[]) =>
    options.user
      ? spawnSync('su', [options.user, '-c', argv.map(shQuote).join(' ')], {
          encoding: 'utf8',
          env: options.env ?? process.env,
          timeout: timeoutMs + 15_000,
          killSignal: 'SIGKILL'
        })
      : spawnSync(argv[0]!, argv.slice(1), {
          encoding: 'utf8',
          env: options.env ?? process.env,
          timeout: timeoutMs + 15_000,
          killSignal: 'SIGKILL'
        })
  const res = exec(run)
  if (res.status === 0) return { ok: true, why: '', hostLimit: false }
  const who = options.user ? `podman as ${options.user}` : 'podman (rootful)'
  // timeout(1) exits 124 (TERM) or 137 (KILL); spawnSync's own bound leaves status null.
  if (res.status === null || res.status === 124 || res.status === 137) {
    exec(['podman', 'rm', '-f', '--ignore', name])
    return {
      ok: false,
      why: `${who} did not start a container of ${image} within ${timeoutMs / 1000} s`,
      hostLimit: false
    }
  }
  const stderr = res.stderr ?? ''
  return {
    ok: false,
    why: `${who} cannot run ${image} (exit ${res.status}): ${firstLine(stderr) || 'no message'}`,
    hostLimit: startRefusal('podman', stderr) !== null
  }
}

/**
 * `describe` when `available`, else `describe.skip` with one line on stderr; on CI, an error unless the reason
 * is a host limit the product names (then a loud line). A boolean means "the tool is installed".
 */
export function describeWhere(
  available: boolean | Availability,
  test: string,
  need: string
): typeof describe {
  const a: Availability =
    typeof available === 'boolean'
      ? { ok: available, why: `needs ${need}, not here`, hostLimit: false }
      : available
  if (a.ok) return describe
  const ci = process.env.CI === 'true'
  if (ci && !a.hostLimit) throw new Error(`CI must run ${test}: .ci/run provides ${need}; ${a.why}`)
  process.stderr.write(
    ci
      ? `SKIPPED ON CI: ${test}: ${a.why} — a property of this host, which the product's preflight reports with its fix\n`
      : `${test}: ${a.why}; skipped\n`
  )
  return describe.skip
}
