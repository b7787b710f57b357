/**
 * `run` refuses to start on a failed driver gate, with the gate's own message. The GPU side is the real
 * H200's recorded nvidia-smi output (replayed by test/preflight/fixtures/replay-nvidia-smi.sh: driver
 * 580.159.04, CUDA 13.0); the image is a real local image whose CUDA_VERSION asks for 13.1.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { CheckSummary } from '../../src/types/index.js'
import { runCli } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const TAG = 'local/gpu-overhead-test:cuda13.1'

let bin = ''
beforeAll(async () => {
  const base = await ensurePythonImage()
  const ctx = fs.mkdtempSync(path.join(os.tmpdir(), 'cuda131-'))
  fs.writeFileSync(path.join(ctx, 'Dockerfile'), `FROM ${base}\nENV CUDA_VERSION=13.1.0\n`)
  const b = spawnSync('docker', ['build', '-q', '-t', TAG, ctx], { encoding: 'utf8' })
  if (b.status !== 0) throw new Error(b.stderr)
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'smi-'))
  // A wrapper, not a symlink: the replay script finds its recordings relative to its own path.
  const smi = path.join(bin, 'nvidia-smi')
  fs.writeFileSync(
    smi,
    `#!/bin/sh\nexec bash ${path.resolve('test/preflight/fixtures/replay-nvidia-smi.sh')} "$@"\n`
  )
  fs.chmodSync(smi, 0o755)
}, 300_000)

test('a failed driver gate stops the run before any workload, with the fix', () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-run-'))
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` }
  const r = runCli(
    [
      'run',
      '--image',
      TAG,
      '--workloads',
      'matmul',
      '--runs',
      '2',
      '--strict',
      '--telemetry',
      'false',
      '--out',
      'out'
    ],
    ws,
    { env, timeoutMs: 120_000 }
  )
  expect(r.code).toBe(1)
  const all = r.stdout + r.stderr
  expect(all).toMatch(/driver-gate: fail/)
  expect(all).toMatch(/580\.159\.04/)
  expect(all).toMatch(/R590/)
  const summary = JSON.parse(fs.readFileSync(path.join(ws, 'out', 'summary.json'), 'utf8')) as CheckSummary
  expect(summary.verdict).toBe('error')
  expect(summary.runs).toHaveLength(0)
  expect(summary.preflight.find(p => p.name === 'driver-gate')?.status).toBe('fail')
  expect(fs.readFileSync(path.join(ws, 'out', 'runs.jsonl'), 'utf8')).toBe('')

  // The same gate from the gate command gives the same message.
  const g = runCli(['gate', '--image', TAG, '--strict'], ws, { env, timeoutMs: 120_000 })
  expect(g.code).toBe(1)
  const gateLine = g.stdout.split('\n')[0]?.replace(/^FAIL driver-gate: /, '') ?? ''
  expect(gateLine.length).toBeGreaterThan(20)
  expect(all).toContain(gateLine)
})
