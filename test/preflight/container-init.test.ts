/**
 * Podman without catatonit, for real: podman 4.3 (Debian) pointed at a containers.conf whose `init_path` does not
 * exist behaves as a host where the recommended catatonit package was left out (`podman run --init` exits 125,
 * "container-init binary not found on the host"). The preflight probe must turn that into one clear failure,
 * and the io-check probe (which also runs --init) into one clear environment error. CI installs podman and
 * catatonit (.ci/run) and must run this; elsewhere it is skipped when podman is absent, and says so. Where podman
 * cannot start any container here (crun on hybrid cgroups: a trial run says so, test/helpers/requires.ts), those
 * tests are skipped, on CI with a loud line, and the product's own answer on such a host is tested instead.
 *
 * default_ulimits: podman 4.3 asks for 1048576 open files, above this project's machines' hard limit
 * (see test/integration/run-cpu-podman.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { loadConfig } from '../../src/config/index.js'
import {
  MISSING_INIT_FIX,
  checkContainerInit,
  missingInitBinary
} from '../../src/preflight/container-init.js'
import { preflightStage } from '../../src/preflight/index.js'
import type { ContainerRuntime } from '../../src/types/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { inspectImage, runtimeFailure } from '../../src/preflight/image.js'
import { runContainer } from '../../src/tools/docker.js'
import { EnvironmentError } from '../../src/util/errors.js'
import { ensurePythonImage } from '../helpers/docker-image.js'
import { describeWhere, hasPodman, podmanRuns } from '../helpers/requires.js'

const TAG = 'local/gpu-overhead-test:py-init'
const ULIMIT = 16384
const BUILD_TIMEOUT_MS = 400_000
const MISSING_INIT = '/nonexistent/catatonit'

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'container-init-'))
const withInit = path.join(ws, 'with-init.conf')
const withoutInit = path.join(ws, 'without-init.conf')
const limits = `default_ulimits = ["nofile=${ULIMIT}:${ULIMIT}", "nproc=${ULIMIT}:${ULIMIT}"]\n`
let imageId = ''

/** One python3 container with the flags every container gets (--init among them), running `code`. */
const startPython = (runtime: ContainerRuntime, image: string, code: string) =>
  runContainer(runtime, { image, label: 'init-probe-test', entrypoint: 'python3', command: ['-c', code] })

// Decided before the tests are collected: the image (podman import needs no container), then one trial container.
if (hasPodman) {
  fs.writeFileSync(withInit, `[containers]\n${limits}`)
  fs.writeFileSync(withoutInit, `[containers]\n${limits}init_path = "${MISSING_INIT}"\n`)
  process.env.CONTAINERS_CONF = withInit
  await ensurePythonImage(TAG, 'podman', 'host', { smoke: false })
  imageId = (await inspectImage(TAG, 'podman', { pull: false })).id
}
const podman = podmanRuns(TAG)
const describePodman = describeWhere(podman, 'the podman init test', 'podman')
/** Where this host's podman refuses every container (crun on hybrid cgroups): the product's preflight says so. */
const describeRefused = podman.hostLimit ? describe : describe.skip

afterAll(() => {
  delete process.env.CONTAINERS_CONF
  if (hasPodman) spawnSync('podman', ['rmi', '-f', TAG], { timeout: 60_000 })
  fs.rmSync(ws, { recursive: true, force: true })
})

describePodman('podman --init: catatonit present or missing (real podman)', () => {
  it('passes when podman can start the image with --init', async () => {
    process.env.CONTAINERS_CONF = withInit
    const r = await checkContainerInit('podman', imageId)
    expect(r).toMatchObject({ name: 'container-init', status: 'pass', fix: null })
  })

  it('fails with one clear line when the init binary is missing', async () => {
    process.env.CONTAINERS_CONF = withoutInit
    const r = await checkContainerInit('podman', imageId)
    expect(r.status).toBe('fail')
    expect(r.message).toMatch(
      /^podman cannot start containers with --init: install catatonit \(apt-get install catatonit\) or set init_path in containers\.conf \(podman said: container-init binary not found on the host: /
    )
    expect(r.message).toContain(MISSING_INIT)
    expect(r.fix).toBe('install catatonit (apt-get install catatonit) or set init_path in containers.conf')
    expect(r.details).toMatchObject({ exit_code: 125 })
  })

  it('a container that fails for another reason is not blamed on the init binary', async () => {
    process.env.CONTAINERS_CONF = withInit
    const res = await startPython('podman', imageId, 'import sys; sys.exit(3)')
    expect(res.exitCode).toBe(3)
    expect(missingInitBinary(res.stderr)).toBeNull()
    expect(runtimeFailure('podman', res)).toBeNull()
  })

  it('every other container start (io-check probe, workloads) maps the same failure to an EnvironmentError', async () => {
    process.env.CONTAINERS_CONF = withoutInit
    const res = await startPython('podman', imageId, '')
    expect(res.exitCode).toBe(125)
    const err = runtimeFailure('podman', res)
    expect(err).toBeInstanceOf(EnvironmentError)
    expect(err?.message).toMatch(/^podman cannot start containers with --init: install catatonit/)
  })

  it("the check's preflight runs the probe: its one failed row (a failed row stops the check before any workload)", async () => {
    process.env.CONTAINERS_CONF = withoutInit
    const config = loadConfig({
      workspace: ws,
      flags: {
        [Inputs.Device]: 'cpu',
        [Inputs.Image]: TAG,
        [Inputs.ContainerRuntime]: 'podman',
        [Inputs.Python]: '/usr/bin/python3'
      }
    })
    const out = await preflightStage(config, null, 'init-probe-test')
    const failed = out.results.filter(r => r.status === 'fail')
    expect(failed.map(r => r.name)).toEqual(['container-init'])
    expect(failed[0]?.message).toMatch(/^podman cannot start containers with --init: install catatonit/)
    process.env.CONTAINERS_CONF = withInit
    const ok = await preflightStage(config, null, 'init-probe-test')
    expect(ok.results.find(r => r.name === 'container-init')?.status).toBe('pass')
  })
})

describeRefused("podman on a host where it refuses every container (this host's own refusal)", () => {
  it('the start probe fails with one clear line naming the fix, never a skip', async () => {
    process.env.CONTAINERS_CONF = withInit
    const r = await checkContainerInit('podman', imageId)
    expect(r.status).toBe('fail')
    expect(r.message).toMatch(/^podman cannot start containers on this host: /)
    expect(r.fix).toMatch(/runc/)
    expect(r.message).not.toContain('\n')
  })

  it("the check's preflight stops before any workload on that row", async () => {
    process.env.CONTAINERS_CONF = withInit
    const config = loadConfig({
      workspace: ws,
      flags: {
        [Inputs.Device]: 'cpu',
        [Inputs.Image]: TAG,
        [Inputs.ContainerRuntime]: 'podman',
        [Inputs.Python]: '/usr/bin/python3'
      }
    })
    const out = await preflightStage(config, null, 'init-probe-test')
    const failed = out.results.filter(r => r.status === 'fail')
    expect(failed.map(r => r.name)).toEqual(['container-init'])
    expect(failed[0]?.message).toMatch(/^podman cannot start containers on this host: /)
  })
})

describe('docker --init (docker-init present on this engine)', () => {
  it(
    'passes',
    async () => {
      const tag = await ensurePythonImage()
      const id = (await inspectImage(tag, 'docker', { pull: false })).id
      const r = await checkContainerInit('docker', id)
      expect(r).toMatchObject({ name: 'container-init', status: 'pass' })
      expect(r.message).toBe('docker starts containers of the image with --init')
    },
    BUILD_TIMEOUT_MS
  )
})

/**
 * Docker without docker-init, for real: a second dockerd (its own socket, data and exec roots, no bridge, no
 * iptables) whose init-path does not exist, reached through DOCKER_HOST like any engine the runner names.
 * It runs in a network namespace of its own (`unshare --net`): started in the host's, `--bridge none` makes
 * it delete the host engine's docker0, and the host's later `docker build`s fail. Its socket is a file, so
 * the host's namespace still reaches it. Needs root, dockerd and unshare (CI has them: .ci/run installs
 * docker.io); elsewhere skipped, and says so.
 */
const canRunDockerd =
  process.getuid?.() === 0 &&
  spawnSync('dockerd', ['--version'], { encoding: 'utf8' }).status === 0 &&
  spawnSync('unshare', ['--net', 'true'], { encoding: 'utf8', timeout: 10_000 }).status === 0
const describeDockerd = describeWhere(
  canRunDockerd,
  'the docker-init test',
  'root, dockerd (docker.io) and unshare --net (util-linux)'
)

describeDockerd('docker --init with docker-init missing (a second, real dockerd)', () => {
  const MISSING_DOCKER_INIT = '/nonexistent/docker-init'
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'dockerd-noinit-'))
  const host = `unix://${path.join(base, 'docker.sock')}`
  let daemon: ReturnType<typeof spawn> | null = null
  let id = ''
  /** The host namespace's network interfaces (docker0 among them where an engine runs) before the second one. */
  const hostLinks = () => fs.readdirSync('/sys/class/net').sort()
  let linksBefore: string[] = []

  beforeAll(async () => {
    const tag = await ensurePythonImage()
    linksBefore = hostLinks()
    const log = fs.openSync(path.join(base, 'dockerd.log'), 'w')
    daemon = spawn(
      'unshare',
      [
        '--net',
        '--',
        'dockerd',
        '--host',
        host,
        '--data-root',
        path.join(base, 'root'),
        '--exec-root',
        path.join(base, 'exec'),
        '--pidfile',
        path.join(base, 'docker.pid'),
        '--bridge',
        'none',
        '--iptables=false',
        '--ip-masq=false',
        '--init-path',
        MISSING_DOCKER_INIT
      ],
      { stdio: ['ignore', log, log] }
    )
    const deadline = Date.now() + 60_000
    while (spawnSync('docker', ['-H', host, 'version'], { timeout: 10_000 }).status !== 0) {
      if (Date.now() > deadline)
        throw new Error(
          `second dockerd did not start: ${fs.readFileSync(path.join(base, 'dockerd.log'), 'utf8')}`
        )
      await new Promise(r => setTimeout(r, 500))
    }
    const tar = path.join(base, 'image.tar')
    expect(spawnSync('docker', ['save', '-o', tar, tag], { timeout: 120_000 }).status).toBe(0)
    expect(spawnSync('docker', ['-H', host, 'load', '-i', tar], { timeout: 120_000 }).status).toBe(0)
    process.env.DOCKER_HOST = host
    id = (await inspectImage(tag, 'docker', { pull: false })).id
  }, BUILD_TIMEOUT_MS)

  afterAll(async () => {
    delete process.env.DOCKER_HOST
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise(r => daemon!.once('exit', r))
      daemon.kill('SIGTERM')
      await Promise.race([exited, new Promise(r => setTimeout(r, 30_000))])
      if (daemon.exitCode === null) daemon.kill('SIGKILL')
    }
    fs.rmSync(base, { recursive: true, force: true })
  }, 60_000)

  it("leaves the host's network as it was (the second engine's bridge settings stay in its own namespace)", () => {
    expect(hostLinks()).toEqual(linksBefore)
  })

  it("the preflight probe fails with one clear line naming the fix and the daemon's own words", async () => {
    const r = await checkContainerInit('docker', id)
    expect(r.status).toBe('fail')
    expect(r.message).toMatch(/^docker cannot start containers with --init: install docker-init /)
    expect(r.message).toContain(MISSING_DOCKER_INIT)
    expect(r.fix).toBe(MISSING_INIT_FIX.docker)
  }, 120_000)

  it('every other container start maps the same failure to an EnvironmentError', async () => {
    const res = await startPython('docker', id, '')
    expect(res.exitCode).not.toBe(0)
    expect(missingInitBinary(res.stderr)).toContain('/sbin/docker-init')
    const err = runtimeFailure('docker', res)
    expect(err).toBeInstanceOf(EnvironmentError)
    expect(err?.message).toMatch(/^docker cannot start containers with --init: install docker-init/)
  }, 120_000)
})
