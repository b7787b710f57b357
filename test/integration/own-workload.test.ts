/**
 * Issue 27 on CPU, through the built CLI and the real Docker engine: the user's own commands run natively (in
 * the workspace) and in an NGC-like image (the workspace read-only at its own path, through the entrypoint),
 * interleaved, compared, gated and explained like the built-ins — read by the protocol helper, by wall time,
 * or from a tool's result file written into {out}.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { CheckSummary } from '../../src/types/index.js'
import { CLI_TIMEOUT_MS, HOST_PYTHON, runCli } from '../helpers/cli.js'
import { buildNgcImage, removeNgcImages } from '../helpers/ngc-image.js'

let image = ''
beforeAll(async () => {
  image = await buildNgcImage({ name: 'own-workload' })
}, 600_000)
afterAll(async () => {
  await removeNgcImages([image])
}, 120_000)

const EXAMPLE = path.resolve('examples/workloads/infer.py')
const CUSTOM = `import json, sys, time
t = time.perf_counter(); sum(range(300000)); dt = time.perf_counter() - t
json.dump([{"name": "sum_ms", "unit": "ms", "value": dt * 1e3}], open(sys.argv[1], "w"))
`

function run(ws: string, extra: string[]): { code: number | null; stderr: string; summary: CheckSummary } {
  const r = runCli(
    [
      'run',
      '--device',
      'cpu',
      '--image',
      image,
      '--runs',
      '3',
      '--max-runs',
      '3',
      '--python',
      HOST_PYTHON,
      '--out',
      'out',
      ...extra
    ],
    ws
  )
  const summary = JSON.parse(fs.readFileSync(path.join(ws, 'out', 'summary.json'), 'utf8')) as CheckSummary
  return { code: r.code, stderr: r.stderr, summary }
}

describe('your own workload: commands through the whole pipeline', () => {
  it(
    'runs a protocol script, a plain command and a result-file command both ways, and compares them',
    () => {
      const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'own-workload-'))
      fs.copyFileSync(EXAMPLE, path.join(ws, 'infer.py'))
      fs.writeFileSync(path.join(ws, 'custom.py'), CUSTOM)
      const r = run(ws, [
        '--command',
        'infer=/usr/bin/python3 infer.py --batch 2 --seq 32 --dim 64 --iters 5',
        '--command',
        'sleepy=/usr/bin/python3 -c "import time; time.sleep(0.05)"',
        '--command',
        'custom=/usr/bin/python3 custom.py {out}/result.json',
        '--command-format',
        'custom=customSmallerIsBetter'
      ])
      expect([0, 1]).toContain(r.code)
      const s = r.summary
      expect(s.complete).toBe(true)
      expect(s.runs.filter(x => x.status !== 'ok')).toEqual([])
      const steady = (s.analysis?.comparisons ?? []).filter(c => c.scope === 'steady')
      const metric = (w: string, m: string) => steady.find(c => c.workload === w && c.metric === m)
      // The helper's samples, the wall time, and the custom JSON's entry, each with 3 runs per arm.
      for (const [w, m] of [
        ['infer', 'forward_ms'],
        ['sleepy', 'wall_s'],
        ['custom', 'sum_ms']
      ] as const) {
        const c = metric(w, m)
        expect({ w, m, found: c !== undefined }).toEqual({ w, m, found: true })
        expect(c!.n_baseline).toBe(3)
        expect(c!.n_candidate).toBe(3)
      }
      // Direction from the helper: throughput is higher-better and never guessed from its name.
      expect(
        (s.analysis?.comparisons ?? []).find(c => c.workload === 'infer' && c.metric === 'tokens_per_s')
          ?.direction
      ).toBe('higher')
      // The helper recorded each arm's stack: the explainer compares them like the built-ins'.
      const envs = new Set((s.stacks ?? []).filter(x => x.workload === 'infer').map(x => x.environment))
      expect(envs).toEqual(new Set(['native', 'container']))
      const container = s.stacks?.find(x => x.workload === 'infer' && x.environment === 'container')
      expect((container?.facts['launch'] as Record<string, unknown>)['entrypoint']).toBe(
        '/opt/nvidia/nvidia_entrypoint.sh'
      )
      // Baselines match the same command line only.
      const infer = s.runs.find(x => x.workload === 'infer')
      expect(infer?.params['command']).toMatch(/infer\.py --batch 2/)
    },
    CLI_TIMEOUT_MS
  )

  it(
    'a protocol command that sends no samples fails with the reason; a missing result file is named',
    () => {
      const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'own-workload-bad-'))
      const r = run(ws, [
        '--command',
        'quiet=/usr/bin/python3 -c pass',
        '--command-format',
        'quiet=protocol',
        '--command',
        'nofile=/usr/bin/python3 -c pass',
        '--command-format',
        'nofile=hyperfine'
      ])
      expect(r.code).toBe(2)
      expect(r.summary.incomplete_reason).toMatch(/no sample events on the channel/)
      expect(r.summary.incomplete_reason).toMatch(/expected one \.json result file in \{out\}, found none/)
    },
    CLI_TIMEOUT_MS
  )

  it(
    'refuses shell syntax before anything runs',
    () => {
      const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'own-workload-shell-'))
      const r = runCli(
        ['run', '--device', 'cpu', '--image', image, '--command', 'x=python3 a.py | tee log', '--out', 'out'],
        ws
      )
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/input 'commands'.*no shell runs it/)
    },
    CLI_TIMEOUT_MS
  )
})
