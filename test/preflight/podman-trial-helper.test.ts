/**
 * test/helpers/requires.ts: a podman test runs only where a trial container starts; a host whose podman refuses
 * every container for a cause the product names (crun on hybrid cgroups, recorded) is skipped, loudly on CI; any
 * other failure is an error on CI. A fake `podman` on PATH plays each case.
 */
import { jest } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { describeWhere, podmanRuns, type Availability } from '../helpers/requires.js'

const RECORDED = path.resolve('test/__fixtures__/podman/run-cgroups-hybrid.txt.stderr')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'podman-trial-'))
const calls = path.join(dir, 'calls')
let savedPath: string | undefined
let savedCi: string | undefined

/** A `podman` that answers `--version`, logs every other argv and then does `body`. */
function fakePodman(body: string): void {
  fs.writeFileSync(
    path.join(dir, 'podman'),
    `#!/bin/sh\n[ "$1" = --version ] && { echo 'podman version 4.3.1'; exit 0; }\necho "$*" >> '${calls}'\n${body}\n`,
    { mode: 0o755 }
  )
  fs.rmSync(calls, { force: true })
}
const argvs = (): string[] => fs.readFileSync(calls, 'utf8').trim().split('\n')

beforeAll(() => {
  savedPath = process.env.PATH
  savedCi = process.env.CI
  process.env.PATH = `${dir}:${savedPath ?? ''}`
})
afterAll(() => {
  process.env.PATH = savedPath
  if (savedCi === undefined) delete process.env.CI
  else process.env.CI = savedCi
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('podmanRuns: one trial container of the local image', () => {
  it('ok when it runs; never pulls, no network', () => {
    fakePodman('exit 0')
    expect(podmanRuns('local/x:py')).toEqual({ ok: true, why: '', hostLimit: false })
    expect(argvs()).toEqual([
      expect.stringMatching(
        /^run --rm --pull=never --network none --name gpu-overhead-trial-\w+ local\/x:py python3 -c import numpy$/
      )
    ])
  })

  it('crun on hybrid cgroups (recorded): a host limit, with the error’s first line', () => {
    fakePodman(`cat '${RECORDED}' >&2\nexit 126`)
    expect(podmanRuns('local/x:py')).toEqual({
      ok: false,
      why: 'podman (rootful) cannot run local/x:py (exit 126): Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2',
      hostLimit: true
    })
  })

  it('another failure is not a host limit', () => {
    fakePodman("echo 'Error: local/x:py: image not known' >&2\necho 'second line' >&2\nexit 125")
    expect(podmanRuns('local/x:py')).toEqual({
      ok: false,
      why: 'podman (rootful) cannot run local/x:py (exit 125): Error: local/x:py: image not known',
      hostLimit: false
    })
  })

  it('a trial that hangs is killed at its bound and its container removed by name', () => {
    fakePodman('[ "$1" = rm ] && exit 0\nsleep 600 &\nwait')
    const t0 = Date.now()
    const r = podmanRuns('local/x:py', { timeoutMs: 1000 })
    expect(Date.now() - t0).toBeLessThan(15_000)
    expect(r).toEqual({
      ok: false,
      why: 'podman (rootful) did not start a container of local/x:py within 1 s',
      hostLimit: false
    })
    const [run, rm] = argvs()
    const name = /--name (\S+)/.exec(run ?? '')?.[1]
    expect(rm).toBe(`rm -f --ignore ${name}`)
  }, 30_000)
})

describe('describeWhere', () => {
  const refused: Availability = { ok: false, why: 'podman cannot run x (exit 126): crun …', hostLimit: true }
  const broken: Availability = {
    ok: false,
    why: 'podman cannot run x (exit 125): image not known',
    hostLimit: false
  }
  let stderr: jest.SpiedFunction<typeof process.stderr.write>
  beforeEach(() => {
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true)
  })
  afterEach(() => stderr.mockRestore())

  it('runs where the tool works', () => {
    process.env.CI = 'true'
    expect(describeWhere({ ok: true, why: '', hostLimit: false }, 't', 'podman')).toBe(describe)
    expect(describeWhere(true, 't', 'podman')).toBe(describe)
  })

  it('off CI: skips with one line saying why', () => {
    delete process.env.CI
    expect(describeWhere(broken, 'the podman test', 'podman')).toBe(describe.skip)
    expect(stderr).toHaveBeenCalledWith(
      'the podman test: podman cannot run x (exit 125): image not known; skipped\n'
    )
  })

  it('on CI: a missing tool or an unknown failure is an error; a host limit the product names is a loud skip', () => {
    process.env.CI = 'true'
    expect(() => describeWhere(false, 'the podman test', 'podman')).toThrow(/^CI must run the podman test/)
    expect(() => describeWhere(broken, 'the podman test', 'podman')).toThrow(/image not known/)
    expect(describeWhere(refused, 'the podman test', 'podman')).toBe(describe.skip)
    expect(stderr).toHaveBeenCalledWith(
      expect.stringMatching(/^SKIPPED ON CI: the podman test: podman cannot run x/)
    )
  })
})
