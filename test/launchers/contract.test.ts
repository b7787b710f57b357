/**
 * Issue 54: the contract every launcher keeps (native, docker, podman, and the tests' fake, registered here by
 * one line), and how an arm names its launcher: `arms: docker:<A>,podman:<B>` runs two engines in one check.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  armImage,
  imageKey,
  imageRuntimes,
  launcherNames,
  launcherOf,
  registerLauncher,
  type LaunchRequest,
  type LaunchSpec
} from '../../src/launchers/index.js'
import { loadConfig, parseArms } from '../../src/config/index.js'
import { startTelemetry } from '../../src/check-steps.js'
import { initialCheckState } from '../../src/gate/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { InputError } from '../../src/util/errors.js'
import { fakeLauncher } from './fake/index.js'

registerLauncher(fakeLauncher)

const A = 'nvcr.io/nvidia/pytorch:25.10-py3@sha256:' + 'a'.repeat(64)
const B = 'nvcr.io/nvidia/pytorch:25.11-py3@sha256:' + 'b'.repeat(64)

describe.each(launcherNames())('launcher %s keeps the contract', name => {
  const l = launcherOf(name)
  it('is found by its name, a plain word', () => {
    expect(l.name).toBe(name)
    expect(name).toMatch(/^[a-z][a-z0-9-]*$/)
  })
  it('runs an image exactly when it names the engine that runs it', () => {
    expect(l.runsImage).toBe(l.runtime !== null)
  })
  it('declares every capability, and parses its settings from an empty environment as the local engine', () => {
    expect(Object.keys(l.capabilities).sort()).toEqual(
      ['cotenantProbe', 'freeze', 'powerCaps', 'sharedFolder', 'telemetry'].sort()
    )
    const s = l.settings({})
    expect(s).toEqual({ clientArgs: [], endpoint: null })
    expect(l.describe(s)).not.toBe('')
  })
  it('an arm names it, and gets its kind from it', () => {
    const arms = parseArms(`${name},native`, A)
    expect(arms[0]).toEqual({
      label: name,
      kind: l.runsImage ? 'container' : 'native',
      image: l.runsImage ? A : null,
      launcher: name
    })
  })
  it('is refused twice', () => {
    expect(() => registerLauncher(l)).toThrow(/registered already/)
  })
  it("builds one workload process from a request: the request's essentials reach the spec", () => {
    const r = request()
    const s = l.processSpec(r)
    const words = wordsOf(s)
    expect(s.timeoutMs).toBe(r.timeoutMs)
    expect([s.hold, s.turns]).toEqual([true, true])
    // The built-in's script and its arguments, in order; the run's id and the channel reach the process.
    expect(words.some(w => w.endsWith('/matmul.py'))).toBe(true)
    expect(s.args.join('\n')).toContain(['--size', '512', '--gpu-lane'].join('\n'))
    expect(words).toContain(`GPU_OVERHEAD_RUN_ID=${r.run.runId}`)
    expect(words.some(w => w.startsWith('GPU_OVERHEAD_EVENTS=') && w.endsWith('/events.jsonl'))).toBe(true)
    // The GPU placement: the lane's device (an engine's flag) or its UUID (CUDA_VISIBLE_DEVICES on the host).
    expect(words.some(w => w === 'device=3' || w === 'CUDA_VISIBLE_DEVICES=GPU-lane-3')).toBe(true)
    // Never a token from the runner's environment; only what the allow-list passes.
    expect(words.join('\n')).not.toContain('ghp_contract')
    if (l.runsImage) {
      // The image by its inspected ID, the clean-up label, the workflow's flags as given, read-only mounts.
      expect(s.args).toContain(r.image.id)
      expect(s.args).toContain(`gpu-overhead-action.check=${r.checkId}`)
      expect(s.args.join(' ')).toContain('--shm-size 1g')
      expect(s.args).toContain(`${r.workloads.shared()}:/gpu-overhead/workloads:ro`)
      expect(s.onKill).toBeDefined()
    }
    const noImage = (): unknown => l.processSpec({ ...r, image: { ref: 'img', id: null } })
    if (l.runsImage) expect(noImage).toThrow(/image img has no inspected image ID/)
    else expect(noImage).not.toThrow()
  })
  it("mounts the arm's JIT cache read-write where CUDA_CACHE_PATH points, or none without one", () => {
    const r = request()
    const cache = { host: path.join(r.run.dir, 'jit'), container: '/gpu-overhead/jit-cache', readOnly: false }
    const words = wordsOf(l.processSpec({ ...r, jitCache: cache }))
    if (l.runsImage) {
      expect(words).toContain(`${cache.host}:${cache.container}`)
      expect(words).toContain(`CUDA_CACHE_PATH=${cache.container}`)
    } else expect(words.join('\n')).not.toContain(cache.host)
    expect(wordsOf(l.processSpec(r)).filter(w => w.includes('CUDA_CACHE_PATH'))).toEqual([])
  })
  it('sends the events framed on stdout when the request says its host shares no folder', () => {
    const words = wordsOf(l.processSpec({ ...request(), events: 'stdout' }))
    expect(words).toContain('GPU_OVERHEAD_EVENTS=stdout')
    expect(words.filter(w => w.includes('events.jsonl'))).toEqual([])
  })
  it("starts a user command's own words, {out} at its private folder as the process sees it", () => {
    const r = request()
    const s = l.processSpec({
      ...r,
      workload: {
        kind: 'command',
        command: {
          name: 'b',
          argv: ['./bench', '--out', '{out}/r.json'],
          format: 'auto',
          source: 'workflow'
        },
        workspace: r.workloads.installed
      }
    })
    const words = wordsOf(s)
    const out = words.find(w => w.startsWith('GPU_OVERHEAD_OUT='))!.slice('GPU_OVERHEAD_OUT='.length)
    expect([s.command, ...s.args].slice(-3)).toEqual(['./bench', '--out', `${out}/r.json`])
    expect(words.some(w => w.endsWith('.py'))).toBe(false)
  })
})

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-'))
for (const d of ['installed', 'copy']) fs.mkdirSync(path.join(scratch, d))
// A secret in the runner's environment: no launcher may pass it to the process.
beforeAll(() => {
  process.env.GITHUB_TOKEN = 'ghp_contract'
})
afterAll(() => {
  delete process.env.GITHUB_TOKEN
  fs.rmSync(scratch, { recursive: true, force: true })
})

/** A request as execute/ makes one: every field set, a lane, hold and turns. */
function request(): LaunchRequest {
  const dir = fs.mkdtempSync(path.join(scratch, 'run-'))
  return {
    checkId: 'c54',
    name: 'gpu-overhead-c54-7-gpu3',
    workload: { kind: 'script', script: 'matmul.py', args: () => ['--size', '512', '--gpu-lane'] },
    run: { dir, eventsFile: path.join(dir, 'events.jsonl'), runId: 'matmul-x-7-abc' },
    events: 'folder',
    workloads: { installed: path.join(scratch, 'installed'), shared: () => path.join(scratch, 'copy') },
    io: null,
    jitCache: null,
    image: { ref: A, id: 'sha256:' + 'c'.repeat(64) },
    gpu: { device: 'gpu', gpuAccess: 'gpus', gpus: 'all', driverMount: null },
    lane: { index: 3, uuid: 'GPU-lane-3', name: null, minor: 3 },
    python: 'python3',
    containerArgs: ['--shm-size', '1g'],
    memory: null,
    isolate: false,
    timeoutMs: 12_345,
    hold: true,
    turns: true
  }
}

/** What the process gets: its argv, and its environment as NAME=value words (an engine's `-e` ones are argv). */
function wordsOf(s: LaunchSpec): string[] {
  return [s.command, ...s.args, ...Object.entries(s.env ?? {}).map(([k, v]) => `${k}=${v}`)]
}

test('two arms on two engines: docker:<A>,podman:<B>', () => {
  const arms = parseArms(`docker:${A},podman:${B}`, null)
  expect(arms.map(a => [a.label, a.launcher, a.image])).toEqual([
    [`docker:${A}`, 'docker', A],
    [`podman:${B}`, 'podman', B]
  ])
})

test('container is the container-runtime launcher, as before', () => {
  expect(parseArms('native,container', A, 'podman')[1]).toEqual({
    label: 'container',
    kind: 'container',
    image: A,
    launcher: 'podman'
  })
  const config = loadConfig({
    workspace: os.tmpdir(),
    flags: { [Inputs.Image]: A, [Inputs.ContainerRuntime]: 'podman' }
  })
  expect(config.arms.map(a => a.launcher)).toEqual(['native', 'podman'])
})

test('an unknown launcher is refused, quoting every allowed form', () => {
  let err: unknown
  try {
    parseArms('native,apptainer:img', A)
  } catch (e) {
    err = e
  }
  expect(err).toBeInstanceOf(InputError)
  expect((err as Error).message).toContain('apptainer:img')
  for (const form of ['native', 'container:<image ref>', 'docker:<image ref>', 'podman:<image ref>', 'fake'])
    expect((err as Error).message).toContain(form)
  expect(() => parseArms('native,fake:img', A)).toThrow(/fake runs no image/)
})

test('a launcher without host-side telemetry: the report says not measured, and no sampler starts', async () => {
  const config = loadConfig({
    workspace: os.tmpdir(),
    flags: { [Inputs.Arms]: 'native,fake', [Inputs.Device]: 'gpu' }
  })
  const state = initialCheckState()
  const sampler = await startTelemetry(
    config,
    { paths: { telemetry: '/nonexistent/telemetry.csv' } } as never,
    state
  )
  expect(sampler).toBeNull()
  expect(state.notMeasured).toEqual([
    {
      what: 'GPU telemetry (utilization, clocks, power, throttling)',
      why: 'not measured: launcher fake has no host-side telemetry'
    }
  ])
})

test("one image reference on two engines is two images: each arm reads its own engine's facts", () => {
  const [docker, podman] = parseArms(`docker:${A},podman:${A}`, null)
  const images = new Map([
    [imageKey('docker', A), { id: 'sha256:docker' }],
    [imageKey('podman', A), { id: 'sha256:podman' }],
    [A, { id: 'sha256:docker' }]
  ])
  expect(armImage(images, docker!, 'docker')?.id).toBe('sha256:docker')
  expect(armImage(images, podman!, 'docker')?.id).toBe('sha256:podman')
  // A map keyed by reference alone (one engine) is read by reference.
  expect(armImage(new Map([[A, { id: 'x' }]]), podman!, 'docker')?.id).toBe('x')
  expect(imageRuntimes([docker!, podman!], 'docker')).toEqual(['docker', 'podman'])
})

test('a remote engine is the launcher setting its variable names; a malformed one stops the check naming it', () => {
  const docker = launcherOf('docker')
  const podman = launcherOf('podman')
  expect(docker.settings({ DOCKER_HOST: 'unix:///run/dind/docker.sock' }).endpoint).toBe(
    'unix:///run/dind/docker.sock'
  )
  expect(docker.describe(docker.settings({ DOCKER_HOST: 'tcp://dind:2375' }))).toBe(
    'docker run on the engine at tcp://dind:2375'
  )
  expect(podman.settings({ CONTAINER_HOST: 'ssh://core@host/run/podman/podman.sock' }).endpoint).toBe(
    'ssh://core@host/run/podman/podman.sock'
  )
  expect(() => docker.settings({ DOCKER_HOST: '/var/run/docker.sock' })).toThrow(
    /^DOCKER_HOST=\/var\/run\/docker.sock is not an engine address: use one of unix:\/\/…/
  )
  expect(() => podman.settings({ CONTAINER_HOST: 'http://x' })).toThrow(/^CONTAINER_HOST=http:\/\/x is not/)
})
