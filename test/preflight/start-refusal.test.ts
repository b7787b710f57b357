/**
 * What refuses every container on a host, whatever the image, is one clear preflight failure with its fix:
 * crun (podman's OCI runtime) on hybrid cgroups, recorded from real podman (test/__fixtures__/podman/), and a
 * missing init binary. A fake `podman` on PATH replays the recording, so this runs on any host.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  CGROUPS_HYBRID_FIX,
  MISSING_INIT_FIX,
  checkContainerInit,
  startRefusal
} from '../../src/preflight/container-init.js'
import { runtimeFailure } from '../../src/preflight/image.js'
import { EnvironmentError } from '../../src/util/errors.js'

const RECORDED = path.resolve('test/__fixtures__/podman/run-cgroups-hybrid.txt.stderr')
const stderr = fs.readFileSync(RECORDED, 'utf8')
const CRUN_LINE = 'crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2'

describe('startRefusal', () => {
  it("names crun's hybrid-cgroups refusal (recorded), the fix for each runtime and crun's own words", () => {
    const r = startRefusal('podman', stderr)
    expect(r).toMatchObject({ kind: 'cgroups-hybrid', detail: CRUN_LINE, fix: CGROUPS_HYBRID_FIX.podman })
    expect(r?.message).toBe(
      `podman cannot start containers on this host: its OCI runtime crun does not support the host's hybrid cgroups ` +
        `(cgroup v1 controllers, and a cgroup v2 hierarchy that holds controllers too): ${CGROUPS_HYBRID_FIX.podman} ` +
        `(podman said: ${CRUN_LINE})`
    )
    expect(r?.fix).toMatch(/runtime = "runc" in the \[engine\] table of containers\.conf/)
    expect(r?.fix).toMatch(/systemd\.unified_cgroup_hierarchy=1/)
    expect(startRefusal('docker', stderr)?.fix).toMatch(
      /"default-runtime": "runc" in \/etc\/docker\/daemon\.json/
    )
  })

  it('keeps the missing init binary line as it was', () => {
    const line =
      'container-init binary not found on the host: stat /nonexistent/catatonit: no such file or directory'
    expect(startRefusal('podman', `Error: ${line}\n`)).toEqual({
      kind: 'init-missing',
      detail: line,
      fix: MISSING_INIT_FIX.podman,
      message: `podman cannot start containers with --init: ${MISSING_INIT_FIX.podman} (podman said: ${line})`
    })
  })

  it("is null for a container's own failure", () => {
    expect(startRefusal('podman', 'Traceback (most recent call last):\nSystemExit: 3\n')).toBeNull()
    expect(startRefusal('podman', '')).toBeNull()
  })

  it('every other container start (io-check probe) maps it to an EnvironmentError', () => {
    const err = runtimeFailure('podman', { exitCode: 126, stderr })
    expect(err).toBeInstanceOf(EnvironmentError)
    expect(err?.message).toMatch(/^podman cannot start containers on this host: its OCI runtime crun/)
    expect(err?.message).not.toContain('\n')
  })
})

describe('the preflight start probe on a host where crun refuses every container', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-refusal-'))
  let savedPath: string | undefined
  beforeAll(() => {
    // A `podman` that answers every run as the recorded one did.
    fs.writeFileSync(path.join(dir, 'podman'), `#!/bin/sh\ncat '${RECORDED}' >&2\nexit 126\n`, {
      mode: 0o755
    })
    savedPath = process.env.PATH
    process.env.PATH = `${dir}:${savedPath ?? ''}`
  })
  afterAll(() => {
    process.env.PATH = savedPath
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('fails (never skips) with one clear line and the fix', async () => {
    const r = await checkContainerInit('podman', 'sha256:0000', 'start-refusal-test')
    expect(r).toMatchObject({
      name: 'container-init',
      status: 'fail',
      fix: CGROUPS_HYBRID_FIX.podman,
      details: { runtime: 'podman', exit_code: 126, cause: 'cgroups-hybrid' }
    })
    expect(r.message).toMatch(/^podman cannot start containers on this host: /)
    expect(r.message).toContain(`(podman said: ${CRUN_LINE})`)
  })
})
