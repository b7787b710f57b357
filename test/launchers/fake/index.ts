/**
 * A launcher that lives in the tests only (issue 54): the host's interpreter, like native, but with none of the
 * host-side measurements and no folder shared with this host, so its events come framed on the process's stdout
 * (as through an exec stream). It shows what adding a launcher takes: this folder, and one registerLauncher line.
 */
import { hostProcessSpec } from '../../../src/launchers/native/index.js'
import type { Launcher } from '../../../src/launchers/index.js'

export const fakeLauncher: Launcher = {
  name: 'fake',
  runsImage: false,
  runtime: null,
  capabilities: {
    telemetry: false,
    cotenantProbe: false,
    powerCaps: false,
    freeze: false,
    sharedFolder: false
  },
  settings: () => ({ clientArgs: [], endpoint: null }),
  describe: () => 'a host process started by the tests’ fake launcher',
  // Its processes start on this host as native ones do; a launcher elsewhere builds its own (an srun argv).
  processSpec: hostProcessSpec
}
