/** The host's own interpreter (the native arm): a process on this host, every host-side measurement. */
import { HOST_CAPABILITIES, type Launcher } from '../launcher.js'
import { hostProcessSpec } from './spec.js'

export { hostProcessSpec, nativeSpec, type NativeRunInput } from './spec.js'

export const nativeLauncher: Launcher = {
  name: 'native',
  runsImage: false,
  runtime: null,
  capabilities: HOST_CAPABILITIES,
  settings: () => ({ clientArgs: [], endpoint: null }),
  describe: () => 'a process on this host (scrubbed environment)',
  processSpec: hostProcessSpec
}
