/**
 * A co-tenant is a fact the explainer names, for real: an image whose entrypoint starts busy processes
 * beside the workload (more than the machine has cores, so the workload must share) makes the container
 * arm slower, and "Why the arms differ" must rank that process first — not the CPU allotment or any
 * other configuration fact — with its command line clipped and its credential-shaped argument masked.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { CheckSummary } from '../../src/types/index.js'
import { execCapture } from '../../src/util/exec.js'
import { cpuRunArgs, runCli } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const TAG = 'local/gpu-overhead-test:py-cotenant'
/** Looks like a credential: the workload, the runner and the report must each keep it out. */
const FAKE_SECRET = 'notasecretbutlooks1234567'
/** Markdown that would close the verdict line's why-link and open one of its own, were it not escaped. */
const LINK = '](https://example.invalid) [x'
/** The co-tenant: two busy processes per core plus their parent, so the workload cannot have a core alone. */
const BUSY = String.raw`exec("import os\nfor _ in range(2 * os.cpu_count()):\n if os.fork()==0:break\nwhile 1:pass")`
const ENTRYPOINT = [
  '/bin/sh',
  '-c',
  `python3 -c '${BUSY}' cotenant-busy '${LINK}' API_TOKEN=${FAKE_SECRET} & exec "$@"`,
  'entrypoint'
]

async function docker(args: string[]): Promise<string> {
  const r = await execCapture('docker', args, { timeoutMs: 120_000 })
  if (r.exitCode !== 0) throw new Error(`docker ${args[0]} failed: ${r.stderr.trim()}`)
  return r.stdout.trim()
}

beforeAll(async () => {
  const base = await ensurePythonImage()
  const cid = await docker(['create', '--network', 'none', base])
  try {
    await docker(['commit', '--change', `ENTRYPOINT ${JSON.stringify(ENTRYPOINT)}`, cid, TAG])
  } finally {
    await docker(['rm', cid])
  }
}, 300_000)

afterAll(async () => {
  await execCapture('docker', ['rmi', '--no-prune', TAG], { timeoutMs: 60_000 })
})

test('a busy process beside the workload in the container only is the top reason, named and masked', () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'why-cotenant-'))
  const r = runCli(
    cpuRunArgs({
      image: TAG,
      out: 'out',
      runs: 3,
      maxRuns: 3,
      // 256² on the reference BLAS: tens of ms of CPU per product, far above a scheduler slice, so sharing
      // the cores with the busy processes shows in every iteration (512² only took longer).
      extra: ['--matmul-size', '256']
    }),
    ws
  )
  expect([0, 1]).toContain(r.code)
  const out = path.join(ws, 'out')
  const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
  const kernel = summary.analysis?.comparisons.find(c => c.workload === 'matmul' && c.metric === 'kernel_ms')
  // The premise, measured: sharing the CPU slowed the container arm.
  expect(kernel?.overhead_pct).toBeGreaterThan(5)

  // The raw facts: the container arm recorded its neighbours, the native arm none; no GPU on the CPU.
  const arm = (env: string) => summary.stacks?.find(s => s.environment === env && s.workload === 'matmul')
  const peers = arm('container')?.cotenants?.find(l => l.scope === 'pid-namespace')
  expect(peers?.unavailable).toBeNull()
  const busy = peers?.processes.find(p => p.cmdline?.includes('cotenant-busy'))
  expect(busy?.name).toBe('python3')
  expect(busy?.cpu_pct).toBeGreaterThan(1)
  expect(busy?.uses_gpu).toBe(false)
  expect(arm('native')?.cotenants?.some(l => l.scope === 'pid-namespace')).toBe(false)
  expect(arm('native')?.cotenants?.find(l => l.scope === 'gpu')?.unavailable).toMatch(/no GPU/)

  const e = summary.explanation!
  const top = e.findings[0]!
  expect(top.kind).toBe('cotenant')
  expect(top.relevant).toBe(true)
  expect(top.label).toBe('other process in the container: python3')
  expect(top.baseline).toBe('none')
  // Its command line, masked where written: the secret's whole word goes (up to the next space or comma).
  expect(top.candidate).toMatch(/^python3 \(python3 -c exec.*API_TOKEN=\*\*\*.*, CPU \d/)
  expect(top.explains.join()).toMatch(/matmul kernel_ms/)
  expect(e.headline).toMatch(/^most likely: other process in the container: python3/)

  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  // The verdict line links to the section; the command line quoted in it cannot break out of the link.
  const first = report.split('\n')[0]!
  expect(first).toContain('[why: most likely: other process in the container: python3')
  // Brackets escaped and the URL broken (a zero-width space after its scheme): inert text, never a link.
  expect(first).toContain('\\](https:/\u200b/example.invalid) \\[x')
  expect(first).not.toMatch(/[^\\]\]\(https:\/\/example\.invalid\)/)
  const why = report.slice(report.indexOf('## Why the arms differ'))
  expect(why).toMatch(/\|\s+1 \| other process in the container: python3\s+\|/)
  for (const file of ['summary.json', 'report.md', 'results.jsonl'])
    expect(fs.readFileSync(path.join(out, file), 'utf8')).not.toContain(FAKE_SECRET)
  fs.rmSync(ws, { recursive: true, force: true })
}, 400_000)

test('prestart: a held container that runs other processes is named, and later ones freeze from their start', () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'why-cotenant-prestart-'))
  const r = runCli(
    cpuRunArgs({ image: TAG, out: 'out', runs: 3, maxRuns: 3, extra: ['--prestart', 'true'] }),
    ws
  )
  expect([0, 1]).toContain(r.code)
  const out = path.join(ws, 'out')
  const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
  // The first held container saw the busy processes its entrypoint started: the check says which and what.
  const said = summary.warnings.filter(w => w.startsWith('prestart:'))
  expect(said).toHaveLength(1)
  expect(said[0]).toMatch(
    /^prestart: the (held )?container of matmul container run \d ran \d+ other process(es)? beside the workload \(python3/
  )
  // Held behind another step, it names the step it ran beside; started by its own step, none.
  if (said[0]!.startsWith('prestart: the held'))
    expect(said[0]).toMatch(/\) while matmul native run \d measured \(what ran there may have slowed it\);/)
  expect(said[0]).toMatch(/from then on every held container was frozen from its start/)
  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  expect(report).toMatch(/the (held )?container of matmul container run/)
  for (const file of ['summary.json', 'report.md'])
    expect(fs.readFileSync(path.join(out, file), 'utf8')).not.toContain(FAKE_SECRET)
  fs.rmSync(ws, { recursive: true, force: true })
}, 400_000)
