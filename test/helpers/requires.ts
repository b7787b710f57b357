/**
 * Tests that need a real tool (podman, a root dockerd): `describe` where it is here, `describe.skip` with a
 * line on stderr where it is not — except on CI (CI=true), whose .ci/run installs it: there a missing tool
 * is an error, so the test cannot be skipped silently.
 */
import { spawnSync } from 'node:child_process'

export const hasPodman = spawnSync('podman', ['--version'], { encoding: 'utf8' }).status === 0

export function describeWhere(available: boolean, test: string, need: string): typeof describe {
  if (!available && process.env.CI === 'true')
    throw new Error(`CI must run ${test}: .ci/run provides ${need}`)
  if (!available) process.stderr.write(`${test}: needs ${need}, not here; skipped\n`)
  return available ? describe : describe.skip
}
