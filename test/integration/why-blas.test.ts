/**
 * "Why the arms differ" on the CPU, for real: the host's NumPy runs on Debian's reference BLAS (CI's
 * default), the container image's NumPy on OpenBLAS. The check must measure the arms as different
 * AND name the BLAS as the reason, not report a "container overhead" (or gain).
 *
 * Needs the package libopenblas0-pthread (the image's OpenBLAS) while the host's NumPy stays on the
 * reference BLAS — installing the package switches the system BLAS to it unless the alternatives are set
 * back, as .ci/run does. Elsewhere skipped with a line naming what is missing; on CI an error.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { CheckSummary } from '../../src/types/index.js'
import { HOST_PYTHON as PYTHON, cpuRunArgs, runCli } from '../helpers/cli.js'
import { OPENBLAS_IMAGE_TAG, ensurePythonImage, hasOpenblasFiles } from '../helpers/docker-image.js'
import { describeWhere } from '../helpers/requires.js'

let image = ''

function hostBlas(): string {
  const code =
    "import sys, json; sys.path.insert(0, 'workloads'); import numpy, _stack; print(_stack.collect(np=numpy)['numpy']['blas']['name'])"
  const r = spawnSync(PYTHON, ['-c', code], { encoding: 'utf8' })
  return r.stdout.trim()
}

const SET_REFERENCE =
  'update-alternatives --set libblas.so.3-x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 (and liblapack.so.3 likewise)'
// The premise, checked rather than assumed: otherwise both arms run the same BLAS.
const blas = hostBlas()
const need = !hasOpenblasFiles()
  ? 'the package libopenblas0-pthread (apt-get install libopenblas0-pthread)'
  : `the host's NumPy on the reference BLAS, not ${blas || 'unknown (python3-numpy?)'} (${SET_REFERENCE})`
const describeBlas = describeWhere(hasOpenblasFiles() && blas === 'reference', 'the why-blas test', need)

describeBlas('native reference BLAS vs an OpenBLAS image (real Docker)', () => {
  beforeAll(async () => {
    image = await ensurePythonImage(OPENBLAS_IMAGE_TAG, 'docker', 'openblas')
  }, 300_000)

  test('the report names the BLAS', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'why-blas-'))
    const r = runCli(cpuRunArgs({ image, runs: 3, out: 'out' }), ws)
    expect([0, 1]).toContain(r.code)
    const out = path.join(ws, 'out')
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
    const kernel = summary.analysis?.comparisons.find(
      c => c.workload === 'matmul' && c.metric === 'kernel_ms'
    )
    // The container is faster here: a difference all the same, and the gate stays undecided.
    expect(kernel?.overhead_pct).toBeLessThan(-20)

    const e = summary.explanation!
    const top = e.findings[0]!
    expect(top.relevant).toBe(true)
    expect(top.label).toMatch(/BLAS/)
    expect([top.baseline, top.candidate]).toEqual(['reference', 'openblas'])
    expect(top.explains.join()).toMatch(/matmul kernel_ms/)
    expect(e.headline).toMatch(/BLAS/)
    // Raw facts for machines; each arm's stack is in the summary and the arms' fingerprints differ.
    const stacks = summary.stacks ?? []
    expect(stacks.map(s => s.environment).sort()).toEqual(['container', 'native'])
    expect(summary.fingerprints['native']?.stack).toMatch(/^stack:/)
    expect(summary.fingerprints['native']?.stack).not.toBe(summary.fingerprints['container']?.stack)

    const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
    expect(report).toContain('## Why the arms differ')
    expect(report.split('\n')[0]).toContain('(#why-the-arms-differ)')
    fs.rmSync(ws, { recursive: true, force: true })
  }, 400_000)
})
