/**
 * Issue 54: two arms on two launchers in one check, through the action entry on the CPU: the same image
 * reference on Docker and on Podman (two engines, two stores, two image IDs). Each arm's image is inspected on
 * its own engine, each arm runs there, and each engine is cleaned up. Skipped where podman cannot start
 * containers (test/helpers/requires.ts `podmanRuns`); CI installs podman (.ci/run) and must run it.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { runAction } from '../hardening/action-env.js'
import { ensurePythonImage } from '../helpers/docker-image.js'
import { describeWhere, hasPodman, podmanRuns } from '../helpers/requires.js'
import type { CheckSummary } from '../../src/types/index.js'

const TAG = 'local/gpu-overhead-test:py'
/** Under this project's machines' hard limits (see run-cpu-podman.test.ts). */
const ULIMIT = 16384
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'arms-launchers-'))
const conf = path.join(ws, 'containers.conf')

/**
 * crun refuses every container on a host with hybrid cgroups (this project's machines); runc, which Docker brings,
 * does not: where runc is installed, podman uses it, as a runner on such a host would configure it.
 */
const hasRunc = spawnSync('runc', ['--version']).status === 0
if (hasPodman) {
  fs.writeFileSync(
    conf,
    `[containers]\ndefault_ulimits = ["nofile=${ULIMIT}:${ULIMIT}", "nproc=${ULIMIT}:${ULIMIT}"]\n` +
      (hasRunc ? '[engine]\nruntime = "runc"\n' : '')
  )
  process.env.CONTAINERS_CONF = conf
  await ensurePythonImage(TAG, 'podman', 'host', { smoke: false })
}
const describePodman = describeWhere(podmanRuns(TAG), 'the docker-vs-podman arms test', 'podman')

afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

describePodman('arms: docker:<image>,podman:<image> (one launcher per arm)', () => {
  it('measures the image on Docker against the same image on Podman, each inspected and cleaned on its engine', async () => {
    await ensurePythonImage(TAG)
    const workspace = path.join(ws, 'workspace')
    fs.mkdirSync(workspace)
    const r = await runAction({
      workspace,
      inputs: {
        arms: `docker:${TAG},podman:${TAG}`,
        workloads: 'matmul',
        'matmul-size': '128',
        runs: '3',
        'max-runs': '3',
        'max-overhead': '50%'
      },
      env: { CONTAINERS_CONF: conf }
    })
    const s = JSON.parse(
      fs.readFileSync(path.join(workspace, 'gpu-overhead-results', 'summary.json'), 'utf8')
    ) as CheckSummary
    const failed = s.runs.filter(x => x.status !== 'ok')
    expect({ failed, log: failed.length ? r.log.slice(-3000) : '' }).toEqual({ failed: [], log: '' })
    expect(s.arms.map(a => a.launcher)).toEqual(['docker', 'podman'])
    expect(s.fingerprints[`docker:${TAG}`]?.runtime).toBe('docker')
    expect(s.fingerprints[`podman:${TAG}`]?.runtime).toBe('podman')
    expect(new Set(s.runs.map(x => x.environment))).toEqual(new Set([`docker:${TAG}`, `podman:${TAG}`]))
    // The driver gate of the second engine's image has its own row, named by its engine.
    expect(s.preflight.map(p => p.name).some(n => n.endsWith(`(${TAG} on podman)`))).toBe(true)
    for (const engine of ['docker', 'podman'])
      expect(
        execFileSync(
          engine,
          ['ps', '-a', '--filter', `label=gpu-overhead-action.check=${s.check_id}`, '-q'],
          {
            encoding: 'utf8'
          }
        ).trim()
      ).toBe('')
    expect(spawnSync('podman', ['image', 'exists', TAG]).status).toBe(0)
  }, 600_000)
})
