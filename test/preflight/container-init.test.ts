/**
 * Podman without catatonit, for real: podman 4.3 (Debian) pointed at a containers.conf whose `init_path` does not
 * exist behaves as a host where the recommended catatonit package was left out (`podman run --init` exits 125,
 * "container-init binary not found on the host"). The preflight probe must turn that into one clear failure,
 * and the io-check probe (which also runs --init) into one clear environment error. CI installs podman and
 * catatonit (.ci/run) and must run this; elsewhere it is skipped when podman is absent, and says so.
 *
 * default_ulimits: podman 4.3 asks for 1048576 open files, above this project's machines' hard limit
 * (see test/integration/run-cpu-podman.test.ts).
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { loadConfig } from '../../src/config/index.js'
import { checkContainerInit, missingInitBinary } from '../../src/preflight/container-init.js'
import { preflightStage } from '../../src/preflight/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { inspectImage, runtimeFailure } from '../../src/preflight/image.js'
import { runContainer } from '../../src/tools/docker.js'
import { EnvironmentError } from '../../src/util/errors.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const TAG = 'local/gpu-overhead-test:py-init'
const ULIMIT = 16384
const BUILD_TIMEOUT_MS = 400_000
const MISSING_INIT = '/nonexistent/catatonit'

const hasPodman = spawnSync('podman', ['--version'], { encoding: 'utf8' }).status === 0
if (!hasPodman && process.env.CI === 'true')
  throw new Error('CI must run the podman init test: .ci/run installs podman')
const describePodman = hasPodman ? describe : describe.skip
if (!hasPodman) process.stderr.write('container-init: podman is not installed here; skipped\n')

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'container-init-'))
const withInit = path.join(ws, 'with-init.conf')
const withoutInit = path.join(ws, 'without-init.conf')
const limits = `default_ulimits = ["nofile=${ULIMIT}:${ULIMIT}", "nproc=${ULIMIT}:${ULIMIT}"]\n`
let imageId = ''

beforeAll(async () => {
  if (!hasPodman) return
  fs.writeFileSync(withInit, `[containers]\n${limits}`)
  fs.writeFileSync(withoutInit, `[containers]\n${limits}init_path = "${MISSING_INIT}"\n`)
  process.env.CONTAINERS_CONF = withInit
  await ensurePythonImage(TAG, 'podman')
  imageId = (await inspectImage(TAG, 'podman', { pull: false })).id
}, BUILD_TIMEOUT_MS)

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
    const res = await runContainer('podman', {
      image: imageId,
      label: 'init-probe-test',
      entrypoint: 'python3',
      command: ['-c', 'import sys; sys.exit(3)']
    })
    expect(res.exitCode).toBe(3)
    expect(missingInitBinary(res.stderr)).toBeNull()
    expect(runtimeFailure('podman', res)).toBeNull()
  })

  it('every other container start (io-check probe, workloads) maps the same failure to an EnvironmentError', async () => {
    process.env.CONTAINERS_CONF = withoutInit
    const res = await runContainer('podman', {
      image: imageId,
      label: 'init-probe-test',
      entrypoint: 'python3',
      command: ['-c', '']
    })
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
