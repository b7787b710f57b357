/**
 * An image bump end to end on the real Docker engine: the current test image vs a candidate built FROM
 * it with one extra ENV (a new image ID, built offline because the base is local), with native as the
 * anchor. The check compares both against the current image and names the images; `aggregate` keeps the
 * three digests in its key.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { AggregateReport } from '../../src/fleet/types.js'
import type { CheckSummary } from '../../src/types/index.js'
import { cpuRunArgs, runCli, type CliResult } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const CANDIDATE = 'local/gpu-overhead-test:py-bump'
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'image-bump-'))
let current = ''

function docker(args: string[]): string {
  // The classic builder resolves FROM against local images without asking a registry.
  const env = { ...process.env, DOCKER_BUILDKIT: '0' }
  const r = spawnSync('docker', args, { encoding: 'utf8', env, timeout: 300_000 })
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')} failed (${r.status}): ${r.stderr}`)
  return r.stdout.trim()
}

const cli = (args: string[]): CliResult => runCli(args, ws)

beforeAll(async () => {
  current = await ensurePythonImage()
  const ctx = fs.mkdtempSync(path.join(os.tmpdir(), 'image-bump-ctx-'))
  fs.writeFileSync(path.join(ctx, 'Dockerfile'), `FROM ${current}\nENV GPU_OVERHEAD_IMAGE_BUMP=candidate\n`)
  docker(['build', '--network', 'none', '-q', '-t', CANDIDATE, ctx])
  fs.rmSync(ctx, { recursive: true, force: true })
}, 600_000)

afterAll(() => {
  spawnSync('docker', ['image', 'rm', CANDIDATE], { encoding: 'utf8' })
})

describe('image bump: container:<current>, container:<candidate>, native', () => {
  it('compares the candidate and native against the current image, with different digests', () => {
    const armList = [`container:${current}`, `container:${CANDIDATE}`, 'native']
    const r = cli(
      cpuRunArgs({
        image: current,
        runs: 3,
        maxRuns: 3,
        out: 'bump',
        extra: ['--arms', armList.join(','), '--warmup-runs', '0', '--matmul-size', '64']
      })
    )
    expect([0, 1]).toContain(r.code)
    const summary = JSON.parse(fs.readFileSync(path.join(ws, 'bump', 'summary.json'), 'utf8')) as CheckSummary
    expect(summary.complete).toBe(true)
    expect(summary.arms.map(a => a.label)).toEqual(armList)

    // Each arm ran what `docker image inspect` says the reference is; the bump is a different image.
    const fp = summary.fingerprints
    const currentId = docker(['image', 'inspect', '--format', '{{.Id}}', current])
    const candidateId = docker(['image', 'inspect', '--format', '{{.Id}}', CANDIDATE])
    expect(fp[armList[0]!]!.image_digest).toBe(currentId)
    expect(fp[armList[1]!]!.image_digest).toBe(candidateId)
    expect(currentId).not.toBe(candidateId)
    expect(fp.native!.image_digest).toBeNull()

    const steady = summary.analysis!.comparisons.filter(c => c.scope === 'steady')
    expect(new Set(steady.map(c => c.baseline_env))).toEqual(new Set([armList[0]]))
    expect(new Set(steady.map(c => c.candidate_env))).toEqual(new Set([armList[1], 'native']))
    for (const c of steady) expect([c.n_baseline, c.n_candidate]).toEqual([3, 3])

    // The report and its verdict line name the images.
    const report = fs.readFileSync(path.join(ws, 'bump', 'report.md'), 'utf8')
    const verdictLine = report.split('\n').find(l => l.trim() !== '')!
    // The candidate's tag starts with the current one: look for the current image on its own.
    expect(verdictLine.split(CANDIDATE).join('')).toContain(`container:${current}`)
    expect(report).toContain(CANDIDATE)
    expect(r.stdout.split('\n')[0]).toBe(verdictLine)
  })

  it('aggregate keeps both digests in the key and names both images', () => {
    const r = cli(['aggregate', 'bump', '--out', 'agg', '--max-overhead', '50%'])
    expect(r.code).toBe(0)
    const report = JSON.parse(
      fs.readFileSync(path.join(ws, 'agg', 'aggregate.json'), 'utf8')
    ) as AggregateReport
    const g = report.groups[0]!
    expect(g.baseline_env).toBe(`container:${current}`)
    expect(g.candidate_envs).toEqual([`container:${CANDIDATE}`, 'native'])
    const digests = g.key.arms.map(a => a.image_digest)
    expect(digests[0]).not.toBe(digests[1])
    expect(digests[2]).toBeNull()
    const md = fs.readFileSync(path.join(ws, 'agg', 'aggregate.md'), 'utf8')
    expect(md).toContain(`container:${CANDIDATE}: ${CANDIDATE} @ sha256:`)
    expect(md).toContain(`container:${current}: ${current} @ sha256:`)
  })
})
