/** Every summary fixture by name, for tests that run over all of them. */
import type { CheckSummary } from '../../../src/types/index.js'
import { gateFailed } from './gate-failed.js'
import { incomparable } from './incomparable.js'
import { incomplete } from './incomplete.js'
import { inconclusive } from './inconclusive.js'
import { pass } from './pass.js'
import { regression } from './regression.js'
import { severalArms } from './several-arms.js'

export { gateFailed, incomparable, incomplete, inconclusive, pass, regression, severalArms }

export const SUMMARIES: Record<string, CheckSummary> = {
  pass,
  regression,
  inconclusive,
  incomparable,
  'gate-failed': gateFailed,
  incomplete,
  'several-arms': severalArms
}
