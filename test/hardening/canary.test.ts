/**
 * No shell ever interprets an input. Every string input that reaches a process gets shell payloads that
 * would create a canary file if any shell saw them — `$(touch …)`, `; touch …`, backticks, a newline —
 * through the real CLI (run, gate, io-check, analyze) and a config file. Bad values must end in exit 2
 * with one line; values that are legal paths must run for real (folders literally named so) — and the
 * canary never appears.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { PYTHON_IMAGE_TAG, ensurePythonImage } from '../helpers/docker-image.js'
import { FAST, cli, errorLine, readSamples, readSummary, workspace } from './helpers.js'

/** Known up front (the cases are built before beforeAll runs); built or found there. */
const image = PYTHON_IMAGE_TAG
beforeAll(async () => {
  await ensurePythonImage()
}, 600_000)

const canaryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hardening-canary-'))
/** Absolute, so a shell anywhere on the host (any cwd) would create it here. */
const CANARY = path.join(canaryDir, 'CANARY')
const PAYLOADS = [`$(touch ${CANARY})`, `; touch ${CANARY}`, `\`touch ${CANARY}\``, `x\ntouch ${CANARY}`]

/** Files named exactly CANARY anywhere under `dir` (a shell with a relative `touch CANARY` would make one). */
function canaries(dir: string): string[] {
  const found: string[] = []
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name === 'CANARY') found.push(path.join(e.parentPath, e.name))
  return found
}

afterEach(() => {
  expect(fs.existsSync(CANARY)).toBe(false)
})

describe('bad values are refused before anything runs: exit 2, one line naming the input', () => {
  const ws = workspace('canary-refused')
  const nn = ['--arms', 'native,native']
  const cases: [string, (p: string) => string[], RegExp][] = [
    ['run --image', p => ['run', ...FAST, '--image', p], /'image'/],
    ['run --arms container:<ref>', p => ['run', ...FAST, '--arms', `native,container:${p}`], /'arms'/],
    ['run --python', p => ['run', ...FAST, ...nn, '--python', p], /'python'/],
    ['run --data-path', p => ['run', ...FAST, ...nn, '--data-path', p], /'data-path'/],
    ['run --checkpoint-path', p => ['run', ...FAST, ...nn, '--checkpoint-path', p], /'checkpoint-path'/],
    ['run --driver-mount', p => ['run', ...FAST, ...nn, '--driver-mount', p], /'driver-mount'/],
    [
      'run --container-memory',
      p => ['run', ...FAST, '--image', image, '--container-memory', p],
      /'container-memory'/
    ],
    ['run --gpus', p => ['run', ...FAST, ...nn, '--gpus', p], /'gpus'/],
    ['run --max-overhead', p => ['run', ...FAST, ...nn, '--max-overhead', p], /'max-overhead'/],
    ['run --config', p => ['run', ...FAST, ...nn, '--config', p], /'config'/],
    ['gate --driver', p => ['gate', '--driver', p, '--cuda', '12.4'], /'driver'/],
    ['gate --cuda', p => ['gate', '--driver', '550.54.14', '--cuda', p], /'cuda'/],
    ['gate --image', p => ['gate', '--driver', '550.54.14', '--image', p], /'image'/],
    ['io-check --image', p => ['io-check', '--image', p, '--data', '/data'], /'image'/],
    ['io-check --data', p => ['io-check', '--image', image, '--data', p], /'data'/],
    ['io-check --ckpt', p => ['io-check', '--image', image, '--ckpt', `${p}:/ckpt`], /'ckpt'/],
    ['analyze --input', p => ['analyze', '--input', p], /input|ENOENT|not found|cannot read/i]
  ]
  const expanded = cases.flatMap(([name, args, input]) =>
    PAYLOADS.map((p, i) => [`${name} #${i + 1}`, args(p), input] as const)
  )
  it.each(expanded)('%s', (_name, args, input) => {
    const r = cli(args, ws)
    expect(r.code).toBe(2)
    expect(errorLine(r)).toMatch(input)
    expect(canaries(ws)).toEqual([])
  })

  it.each(['image', 'python', 'arms', 'container-memory', 'data-path', 'gpus'])(
    'config file value %s',
    key => {
      for (const p of PAYLOADS) {
        const file = path.join(ws, `cfg-${key}.yml`)
        // The image comes as a flag (a config file may not set it); the file sets the key under test.
        const values: Record<string, string> = {
          device: 'cpu',
          workloads: 'matmul',
          runs: '2',
          [key]: key === 'arms' ? `native,container:${p}` : p
        }
        fs.writeFileSync(
          file,
          Object.entries(values)
            .map(([k, v]) => `${k}: ${JSON.stringify(v)}\n`)
            .join('')
        )
        const r = cli(['run', '--config', file, ...(key === 'image' ? [] : ['--image', image])], ws)
        expect(r.code).toBe(2)
        expect(errorLine(r)).toContain(`'${key}'`)
      }
      expect(canaries(ws)).toEqual([])
    }
  )
})

describe('legal but hostile-looking values run for real, and no shell sees them', () => {
  it('run: data, checkpoint, out and baseline folders named with shell payloads (native + container, io)', () => {
    const ws = workspace('canary-run')
    const [dollar, semi, tick, newline] = PAYLOADS as [string, string, string, string]
    const data = `d-${dollar}`
    const ckpt = `c-${tick}`
    const out = `o-${semi}`
    const baseline = `b-${newline.replace('\n', ' ')}.json`
    fs.mkdirSync(path.join(ws, data), { recursive: true })
    fs.writeFileSync(path.join(ws, data, 'shard.bin'), Buffer.alloc(1 << 20, 7))
    fs.mkdirSync(path.join(ws, ckpt), { recursive: true })
    const r = cli(
      [
        'run',
        ...FAST,
        '--workloads',
        'matmul,io',
        '--image',
        image,
        '--checkpoint-mb',
        '1',
        '--data-path',
        data,
        '--checkpoint-path',
        ckpt,
        '--baseline-path',
        baseline,
        '--save-baseline',
        '--out',
        out
      ],
      ws
    )
    expect([0, 1]).toContain(r.code)
    const summary = readSummary(path.join(ws, out))
    expect(summary.complete).toBe(true)
    expect(new Set(readSamples(path.join(ws, out)).map(s => `${s.workload}/${s.environment}`))).toEqual(
      new Set(['matmul/native', 'matmul/container', 'io/native', 'io/container'])
    )
    expect(fs.existsSync(path.join(ws, baseline))).toBe(true)
    expect(canaries(ws)).toEqual([])
  })

  it('run --config: a config file whose name carries payloads (image and out, which a file may not set, as flags)', () => {
    const ws = workspace('canary-config')
    const [dollar, semi] = PAYLOADS as [string, string, string, string]
    const file = path.join(ws, `cfg-${semi.replace(/\//g, '_')}.yml`)
    fs.writeFileSync(file, ['device: cpu', 'workloads: matmul', 'runs: 2', ''].join('\n'))
    // The knobs are the file's; image, out and the interpreter come as flags (docs/security.md).
    const r = cli(
      ['run', '--config', path.basename(file), '--image', image, '--out', `o-${dollar}`, ...FAST.slice(6)],
      ws
    )
    expect([0, 1]).toContain(r.code)
    expect(readSummary(path.join(ws, `o-${dollar}`)).complete).toBe(true)
    expect(canaries(ws)).toEqual([])
  })

  it('io-check: a container path with a payload, next to a bind mount a shell in the container would hit', () => {
    const ws = workspace('canary-io-check')
    // If anything in the container ran the path through sh, /canary/CANARY would land in canaryDir.
    const r = cli(
      [
        'io-check',
        '--image',
        image,
        '--data',
        `${canaryDir}:/canary`,
        '--ckpt',
        '/canary/c$(touch /canary/CANARY)'
      ],
      ws
    )
    expect([0, 1]).toContain(r.code)
    expect(r.stdout).toMatch(/canary/)
    expect(canaries(canaryDir)).toEqual([])
  })

  it('analyze --input: a results CSV whose file name carries payloads', () => {
    const ws = workspace('canary-analyze')
    const csv = path.join(ws, 'r-$(touch CANARY); touch CANARY `touch CANARY`.csv')
    const rows = ['workload,environment,run,metric,value']
    for (const env of ['native', 'container'])
      for (let run = 1; run <= 4; run++) rows.push(`matmul,${env},${run},kernel_ms,${10 + run / 10}`)
    fs.writeFileSync(csv, `${rows.join('\n')}\n`)
    const r = cli(['analyze', '--input', csv, '--baseline', `${ws}/$(touch CANARY).json`], ws)
    expect([0, 1]).toContain(r.code)
    expect(r.stdout).toMatch(/kernel_ms/)
    expect(canaries(ws)).toEqual([])
  })
})
