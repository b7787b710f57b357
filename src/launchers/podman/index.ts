/**
 * Podman's CLI (the same argv as Docker's, tools/docker.ts). A remote service is CONTAINER_HOST, which is
 * podman's own default for `--url` and turns `--remote` on; like a remote Docker engine it sees only the work
 * folder.
 */
import { HOST_CAPABILITIES, type Launcher } from '../launcher.js'
import { engineEndpoint } from '../endpoint.js'
import { engineProcessSpec } from '../engine-cli/index.js'

export const podmanLauncher: Launcher = {
  name: 'podman',
  runsImage: true,
  runtime: 'podman',
  capabilities: HOST_CAPABILITIES,
  settings: env => ({ clientArgs: [], endpoint: engineEndpoint('CONTAINER_HOST', env.CONTAINER_HOST) }),
  describe: s => `podman run${s.endpoint ? ` through the service at ${s.endpoint}` : ''}`,
  processSpec: r => engineProcessSpec('podman', r)
}
