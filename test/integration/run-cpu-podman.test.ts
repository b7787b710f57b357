/**
 * The real pipeline on the CPU with Podman as the container runtime (Debian's podman 4.3, rootful), through the
 * built CLI: native vs a local image (`podman import`ed, nothing pulled, --network none). CI installs podman
 * (.ci/run) and must run this; elsewhere it is skipped when podman is absent, and says so.
 *
 * Where podman cannot start containers at all (crun on hybrid cgroups), both tests are skipped with podman's own
 * line (test/helpers/requires.ts `podmanRuns`); on CI too, since the product's preflight names that host with its fix.
 *
 * Podman 4.3 gives every container RLIMIT_NOFILE/RLIMIT_NPROC of 1048576 by default; where the host's hard limit
 * is lower (this project's sandboxed machines: nofile 20000), runc cannot raise it and every `podman run` fails
 * with "error setting rlimit type 7: operation not permitted". The test points podman at a containers.conf whose
 * default_ulimits stay under the host's limits (CONTAINERS_CONF), as a runner with such limits would.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { CheckSummary } from '../../src/types/index.js'
import { cpuRunArgs, runCli } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'
import { describeWhere, hasPodman, podmanRuns, type Availability } from '../helpers/requires.js'

const TAG = 'local/gpu-overhead-test:py'
/** Under this project's machines' hard limits (nofile 20000; nproc above 16384 is refused). */
const ULIMIT = 16384
const RUN_TIMEOUT_MS = 400_000

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'run-cpu-podman-'))
const conf = path.join(ws, 'containers.conf')
const CONF_TEXT = `[containers]\ndefault_ulimits = ["nofile=${ULIMIT}:${ULIMIT}", "nproc=${ULIMIT}:${ULIMIT}"]\n`
let builtHere = false

// Decided before the tests are collected: the image is built (podman import, no container needed), then one trial
// container says whether this host's podman can run it at all (crun refuses every container on hybrid cgroups).
if (hasPodman) {
  fs.writeFileSync(conf, CONF_TEXT)
  process.env.CONTAINERS_CONF = conf
  builtHere = spawnSync('podman', ['image', 'exists', TAG]).status !== 0
  await ensurePythonImage(TAG, 'podman', 'host', { smoke: false })
}
const rootful = podmanRuns(TAG)
const describePodman = describeWhere(rootful, 'the podman run test', 'podman')

describePodman('gpu-overhead run --device cpu --container-runtime podman (rootful)', () => {
  it('measures native vs the podman container and records podman in the fingerprint', () => {
    const r = runCli(
      cpuRunArgs({
        image: TAG,
        runs: 3,
        maxRuns: 3,
        out: 'out',
        extra: ['--container-runtime', 'podman', '--matmul-size', '128']
      }),
      ws,
      { timeoutMs: RUN_TIMEOUT_MS, env: { ...process.env, CONTAINERS_CONF: conf } }
    )
    expect(r.stderr).not.toMatch(/rlimit|OCI permission denied/)
    expect([0, 1]).toContain(r.code)
    const summary = JSON.parse(fs.readFileSync(path.join(ws, 'out', 'summary.json'), 'utf8')) as CheckSummary
    expect(summary.complete).toBe(true)
    expect(summary.fingerprints.container?.runtime).toBe('podman')
    const gated =
      summary.analysis?.comparisons.filter(c => c.scope === 'steady' && c.workload === 'matmul') ?? []
    expect(gated.length).toBeGreaterThan(0)
    for (const c of gated) expect([c.n_baseline, c.n_candidate]).toEqual([3, 3])
    // Every workload container is gone (--rm), whatever the verdict.
    expect(
      execFileSync('podman', ['ps', '-a', '--format', '{{.Image}}'], { encoding: 'utf8' })
    ).not.toContain(TAG)
  })
})

/**
 * Rootless: a plain user (created here when missing; root only) with its own podman storage (vfs) runs the
 * packaged CLI against the same image, loaded from a `podman save` archive. Needs uidmap's newuidmap and a
 * subuid range (useradd makes one), so it runs where root can create the user: CI and the developers' machines.
 * The user and its image are made before the tests are collected, for the plain user's own trial container.
 */
const ROOTLESS_USER = 'gpu-overhead-rootless'
const home = path.join('/home', ROOTLESS_USER)
const archive = path.join(home, 'image.tar')
/** The same limits for the plain user, in a file it can read (root's copy is in a 0700 temp folder). */
const userConf = path.join(home, 'containers.conf')
const canRootless =
  hasPodman &&
  process.getuid?.() === 0 &&
  spawnSync('sh', ['-c', 'command -v newuidmap && command -v useradd && command -v su']).status === 0
if (hasPodman && !canRootless)
  process.stderr.write('run-cpu-podman: rootless needs root, useradd and newuidmap; skipped\n')

/**
 * Where the lane gave root's Podman a store of its own (its default cannot live on OverlayFS, as in a container:
 * scripts/test-images/podman-storage.mjs), the plain user's default cannot work either: it gets a vfs store in
 * its home, removed with the user's image.
 */
const userStore = path.join(home, 'vfs-store')
const userStorageConf = path.join(home, 'storage.conf')
const ownStore = process.env.CONTAINERS_STORAGE_CONF !== undefined

/** `su` keeps the caller's environment: the user's own containers.conf and storage.conf replace root's. */
const userEnv = (): NodeJS.ProcessEnv => {
  const { CONTAINERS_STORAGE_CONF: _rootStore, ...env } = process.env
  return {
    ...env,
    CONTAINERS_CONF: userConf,
    ...(ownStore ? { CONTAINERS_STORAGE_CONF: userStorageConf } : {})
  }
}
const asUser = (script: string): { status: number | null; stderr: string } => {
  const r = spawnSync('su', [ROOTLESS_USER, '-c', script], {
    cwd: home,
    env: userEnv(),
    encoding: 'utf8',
    timeout: RUN_TIMEOUT_MS
  })
  return { status: r.status, stderr: r.stderr }
}

/** The plain user, its containers.conf and the image in its own storage; then its trial container. */
function rootlessAvailability(): Availability {
  if (spawnSync('id', [ROOTLESS_USER]).status !== 0) execFileSync('useradd', ['-m', ROOTLESS_USER])
  fs.writeFileSync(userConf, CONF_TEXT)
  if (ownStore) {
    fs.mkdirSync(userStore, { recursive: true })
    fs.writeFileSync(
      userStorageConf,
      `[storage]\ndriver = "vfs"\nrunroot = "${userStore}/run"\ngraphroot = "${userStore}/graph"\n`
    )
    execFileSync('chown', ['-R', ROOTLESS_USER, userStore, userStorageConf])
  }
  fs.rmSync(archive, { force: true })
  execFileSync('podman', ['save', '-o', archive, TAG], { timeout: RUN_TIMEOUT_MS, stdio: 'pipe' })
  execFileSync('chown', [ROOTLESS_USER, archive, userConf])
  const load = asUser(`podman load -i ${archive}`)
  fs.rmSync(archive, { force: true })
  if (load.status !== 0) throw new Error(`podman load as ${ROOTLESS_USER} failed: ${load.stderr.trim()}`)
  return podmanRuns(`localhost/${TAG}`, { user: ROOTLESS_USER, env: userEnv() })
}
const rootless = canRootless ? rootlessAvailability() : null
const describeRootless = rootless
  ? describeWhere(rootless, 'the rootless podman run test', 'podman, uidmap')
  : describe.skip

/** Everything this file made (both images, root's temp folder); idempotent. */
function cleanUp(): void {
  if (rootless) asUser(`podman rmi localhost/${TAG}`)
  if (ownStore) fs.rmSync(userStore, { recursive: true, force: true })
  if (builtHere) spawnSync('podman', ['rmi', TAG], { timeout: 60_000 })
  builtHere = false
  delete process.env.CONTAINERS_CONF
  fs.rmSync(ws, { recursive: true, force: true })
}
// Jest runs no hook of a file whose every test is skipped: then clean up now.
if (rootful.ok || rootless?.ok) afterAll(cleanUp)
else cleanUp()

describeRootless('gpu-overhead run --container-runtime podman (rootless, as a plain user)', () => {
  it('runs the check with the plain user’s own podman', () => {
    const app = path.join(home, 'app')
    fs.rmSync(app, { recursive: true, force: true })
    fs.mkdirSync(app, { recursive: true })
    for (const f of ['dist', 'workloads', 'package.json'])
      fs.cpSync(f, path.join(app, f), { recursive: true })
    execFileSync('chown', ['-R', ROOTLESS_USER, app])
    const r = asUser(
      `cd ${home} && rm -rf out && node app/dist/cli.js run --device cpu --container-runtime podman ` +
        `--image localhost/${TAG} --workloads matmul --matmul-size 128 --runs 3 --max-runs 3 --python /usr/bin/python3 --out out`
    )
    expect([0, 1]).toContain(r.status)
    const summary = JSON.parse(
      fs.readFileSync(path.join(home, 'out', 'summary.json'), 'utf8')
    ) as CheckSummary
    expect(summary.complete).toBe(true)
    expect(summary.fingerprints.container?.runtime).toBe('podman')
  })
})
