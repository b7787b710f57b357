/**
 * The process each arm starts for a built-in and for a user command: argv, mounts and env, read off the
 * workload's definition (issue 27) exactly as they were read off its name before.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  CHECKPOINT_CONTAINER_PATH,
  DATA_CONTAINER_PATH,
  definitionOf,
  loadConfig
} from '../../src/config/index.js'
import { RunFolders, processSpec } from '../../src/execute/index.js'
import { emptyPreflightOutcome, type PreflightOutcome } from '../../src/preflight/index.js'
import { Inputs } from '../../src/types/inputs.js'

const IMAGE = 'nvcr.io/nvidia/pytorch:25.10-py3@sha256:' + 'a'.repeat(64)
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-'))
const ckpt = path.join(root, 'ckpt')
fs.mkdirSync(ckpt)
// The tool's workloads folder (where it was installed) and the work folder a remote engine shares, apart.
const installed = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-installed-'))
fs.writeFileSync(path.join(installed, 'matmul.py'), '# matmul\n')
const work = path.join(root, 'work')
fs.mkdirSync(work)
const io = {
  data: { host: '/data', container: DATA_CONTAINER_PATH, readOnly: true },
  checkpoint: { host: ckpt, container: CHECKPOINT_CONTAINER_PATH, readOnly: false },
  created: []
}
const config = loadConfig({
  workspace: root,
  flags: {
    [Inputs.Image]: IMAGE,
    [Inputs.Device]: 'cpu',
    [Inputs.Workloads]: 'matmul,io,bench,ws',
    [Inputs.Commands]: 'bench: ./bench --out {out}/r.json\nws: python3 {workspace}/b.py --data={workspace}/d'
  }
})
// Only the inspected image ID matters to the spec.
const images = new Map([[IMAGE, { id: 'sha256:' + 'b'.repeat(64) }]]) as unknown as PreflightOutcome['images']
const pre: PreflightOutcome = { ...emptyPreflightOutcome(), images }
const folders = RunFolders.open('spec-test', work)
afterAll(() => {
  folders.close()
  for (const d of [root, installed]) fs.rmSync(d, { recursive: true, force: true })
})

function spec(workload: string, armIndex: number) {
  const planned = { order: 0, workload, arm: config.arms[armIndex]!, run: 1, warmup: false }
  const definition = definitionOf(config.definitions, workload)
  return processSpec({
    planned,
    config,
    checkId: 'c1',
    workloadsDir: installed,
    io,
    pre,
    lane: null,
    hold: false,
    folders,
    definition
  })
}
const after = (argv: readonly string[], word: string): string[] => argv.slice(argv.indexOf(word) + 1)
const mountsOf = (argv: readonly string[]): string[] =>
  argv.flatMap((a, i) => (a === '-v' ? [argv[i + 1]!] : []))

test('a built-in natively: its script under Python, its args, the channel env', () => {
  const s = spec('matmul', 0)
  expect(s.command).toBe(config.python)
  expect(s.args).toEqual([
    path.join(installed, 'matmul.py'),
    ...['--device', 'cpu', '--seed', String(config.seed), '--size', '512', '--dtype', 'fp32']
  ])
  expect(s.env!.GPU_OVERHEAD_EVENTS).toBe(s.eventsPath)
  expect(s.env!.GPU_OVERHEAD_RUN_ID).toBe(s.runId)
  s.cleanup?.()
})

test('io in the container: the data folder read-only, its own checkpoint folder writable', () => {
  const s = spec('io', 1)
  const argv = s.args
  expect(after(argv, `/gpu-overhead/workloads/io.py`).slice(0, 8)).toEqual([
    ...['--device', 'cpu', '--seed', String(config.seed)],
    ...['--data', DATA_CONTAINER_PATH, '--ckpt', CHECKPOINT_CONTAINER_PATH]
  ])
  const mounts = mountsOf(argv)
  expect(mounts).toContain(`/data:${DATA_CONTAINER_PATH}:ro`)
  expect(mounts.filter(m => m.endsWith(`:${CHECKPOINT_CONTAINER_PATH}`))).toEqual([
    expect.stringMatching(new RegExp(`^${ckpt}/gpu-overhead-run-io-container-0-[0-9a-f]+:`))
  ])
  s.cleanup?.()
})

test('every mount source of a container run lies in the work folder or a folder the user named (issue 54)', () => {
  // A remote engine (ARC dind) shares the work folder only: the workloads folder is a copy there.
  const s = spec('io', 1)
  const sources = mountsOf(s.args).map(m => m.split(':')[0]!)
  const workloads = mountsOf(s.args)
    .find(m => m.split(':')[1] === '/gpu-overhead/workloads')!
    .split(':')[0]!
  expect(workloads.startsWith(`${folders.root}/`)).toBe(true)
  expect(fs.readFileSync(path.join(workloads, 'matmul.py'), 'utf8')).toBe('# matmul\n')
  expect(
    sources.filter(p => !p.startsWith(`${work}/`) && p !== '/data' && !p.startsWith(`${ckpt}/`))
  ).toEqual([])
  s.cleanup?.()
})

test('a user command in the container: its argv, the workspace read-only at its path, no io folders', () => {
  const s = spec('bench', 1)
  const argv = s.args
  expect(argv.slice(-3)).toEqual(['./bench', '--out', '/gpu-overhead/run/r.json'])
  expect(argv[argv.indexOf('-w') + 1]).toBe(root)
  const mounts = mountsOf(argv)
  expect(mounts).toContain(`${root}:${root}:ro`)
  expect(mounts.join('\n')).not.toContain(DATA_CONTAINER_PATH)
  expect(mounts.join('\n')).not.toContain(CHECKPOINT_CONTAINER_PATH)
  expect(argv.join(' ')).not.toContain('.py')
  s.cleanup?.()
})

test('a user command natively: its argv in the workspace', () => {
  const s = spec('bench', 0)
  expect([s.command, ...s.args.slice(0, 1)]).toEqual(['./bench', '--out'])
  expect(s.cwd).toBe(root)
  s.cleanup?.()
})

test('{workspace} is the workspace in both arms (mounted at its own path), whatever folder the process runs in', () => {
  const native = spec('ws', 0)
  expect(native.args).toEqual([`${root}/b.py`, `--data=${root}/d`])
  native.cleanup?.()
  const container = spec('ws', 1)
  expect(container.args.slice(-3)).toEqual(['python3', `${root}/b.py`, `--data=${root}/d`])
  container.cleanup?.()
})

describe("a container arm's CUDA JIT cache, kept for the check", () => {
  const gpuConfig = (more: Record<string, string> = {}) =>
    loadConfig({
      workspace: root,
      flags: { [Inputs.Image]: IMAGE, [Inputs.Device]: 'gpu', [Inputs.Workloads]: 'matmul', ...more }
    })
  /** `images`: each image's env by reference (every image an arm names, default only IMAGE with `env`). */
  const gpuSpec = (
    cfg: ReturnType<typeof gpuConfig>,
    armIndex: number,
    order: number,
    env: Record<string, string> = {},
    images: Record<string, Record<string, string>> = { [IMAGE]: env },
    workload = 'matmul'
  ) => {
    const imgs = new Map(
      Object.entries(images).map(([ref, e], i) => [ref, { id: 'sha256:' + String(i).repeat(64), env: e }])
    ) as unknown as PreflightOutcome['images']
    return processSpec({
      planned: { order, workload, arm: cfg.arms[armIndex]!, run: order, warmup: false },
      config: cfg,
      checkId: 'c1',
      workloadsDir: installed,
      io: null,
      pre: { ...emptyPreflightOutcome(), images: imgs },
      lane: null,
      hold: false,
      folders,
      definition: definitionOf(cfg.definitions, workload)
    })
  }
  const cacheMount = (argv: readonly string[]): string | undefined =>
    mountsOf(argv).find(m => m.endsWith(':/gpu-overhead/jit-cache'))

  test('every container process of the arm mounts the same folder, writable, CUDA_CACHE_PATH at it; the native arm none', () => {
    const cfg = gpuConfig()
    const a = gpuSpec(cfg, 1, 1)
    const b = gpuSpec(cfg, 1, 2)
    const m = cacheMount(a.args)
    expect(m).toBeDefined()
    expect(cacheMount(b.args)).toBe(m)
    expect(a.args).toContain('CUDA_CACHE_PATH=/gpu-overhead/jit-cache')
    const host = m!.slice(0, -':/gpu-overhead/jit-cache'.length)
    expect(path.dirname(host)).toBe(folders.root)
    // Empty at the arm's first process, as a fresh container's is; writable for the image's USER.
    expect(fs.readdirSync(host)).toEqual([])
    expect(fs.statSync(host).mode & 0o777).toBe(0o777)
    const native = gpuSpec(cfg, 0, 3)
    expect(JSON.stringify(native)).not.toContain('jit-cache')
    expect(native.env?.CUDA_CACHE_PATH).toBeUndefined()
    for (const s of [a, b, native]) s.cleanup?.()
  })

  test("each workload's first container process starts with an empty folder of its own", () => {
    const cfg = gpuConfig({ [Inputs.Workloads]: 'matmul,llm' })
    const m = gpuSpec(cfg, 1, 1)
    const l = gpuSpec(cfg, 1, 2, {}, undefined, 'llm')
    expect(cacheMount(l.args)).toBeDefined()
    expect(cacheMount(l.args)).not.toBe(cacheMount(m.args))
    for (const s of [m, l]) s.cleanup?.()
  })

  test('two container arms keep two folders', () => {
    const other = 'nvcr.io/nvidia/pytorch:25.11-py3@sha256:' + 'c'.repeat(64)
    const cfg = gpuConfig({ [Inputs.Arms]: `container:${IMAGE},container:${other}` })
    const mounts = [0, 1].map(i => {
      const s = gpuSpec(cfg, i, 1, {}, { [IMAGE]: {}, [other]: {} })
      s.cleanup?.()
      return cacheMount(s.args)
    })
    expect(mounts.every(m => m !== undefined)).toBe(true)
    expect(mounts[0]).not.toBe(mounts[1])
  })

  test("none where the image or the workflow's container-args say where the cache is or turn it off, nor on a CPU", () => {
    const cfg = gpuConfig()
    for (const env of [{ CUDA_CACHE_PATH: '/cache/nv' }, { CUDA_CACHE_DISABLE: '1' }] as Record<
      string,
      string
    >[]) {
      const s = gpuSpec(cfg, 1, 1, env)
      expect(cacheMount(s.args)).toBeUndefined()
      expect(s.args.join(' ')).not.toContain('CUDA_CACHE_PATH=/gpu-overhead')
      s.cleanup?.()
    }
    const argsCfg = gpuConfig({ [Inputs.ContainerArgs]: '-e CUDA_CACHE_PATH=/mnt/cache' })
    const s = gpuSpec(argsCfg, 1, 1)
    expect(cacheMount(s.args)).toBeUndefined()
    s.cleanup?.()
    const cpu = spec('matmul', 1)
    expect(cacheMount(cpu.args)).toBeUndefined()
    cpu.cleanup?.()
  })
})
