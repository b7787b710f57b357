/** "How to read this": the definitions of overhead, p, and each verdict, with this check's limits. Pure. */
import type { CheckSummary } from '../types/index.js'
import { fmtPlain } from './format.js'
import type { Section } from './section.js'

// A CPU check has no duet, no turns and no GPU fingerprint: its definitions say what it did.
const PAIRED = {
  gpu: 'the arms ran in blocks (run r of each arm adjacent in the interleaved schedule, or at the same time on a GPU pair in a duet, or — with turns, the llm on one GPU — taking turns request by request), and the overhead is the ratio of the arms’ request means over every block, with Fieller’s paired t interval (blocks − strata degrees of freedom; in a duet each GPU pair and orientation is a stratum)',
  cpu: 'the arms ran in blocks (run r of each arm adjacent in the interleaved schedule), and the overhead is the ratio of the arms’ means over every block, with Fieller’s paired t interval (blocks − 1 degrees of freedom)'
} as const
const FINGERPRINT = {
  gpu: 'GPU, driver, clocks, MIG…',
  cpu: 'device, image digest, workload settings…'
} as const

export function definitionsSection(summary: CheckSummary): Section {
  const device = summary.config.device === 'cpu' ? 'cpu' : 'gpu'
  const m = fmtPlain(summary.analysis?.max_overhead_pct ?? summary.config.max_overhead_pct)
  const alpha = fmtPlain(summary.analysis?.alpha ?? summary.config.alpha)
  const body = [
    '## How to read this\n',
    `- **Overhead**: how much worse the candidate (e.g. the container) is than the baseline (e.g. native): mean(candidate) / mean(baseline) − 1 for lower-is-better metrics (↓), mean(baseline) / mean(candidate) − 1 for higher-is-better ones (↑), as each workload declares; the tables show those means; positive means the candidate costs more, a significant negative overhead beyond the margin is an **improvement**, “–” means no ratio exists (zero baseline), and from +900% on it is written as a factor (320× = 320 times the baseline’s cost). The 95% CI is of the ratio of means: a bootstrap interval, or the Welch t interval where that is wider. Marked *paired*: ${PAIRED[device]}, so a host-wide state both processes of a block shared cancels; no block is left out, and where a screened view (blocks far off the others left out) would say otherwise, a note says why; the means beside it are context.`,
    `- **p (Holm)**: the paired test on the within-block ratios (Welch’s t-test where the arms have no blocks), Holm-corrected across the gated metrics of this report (Mann–Whitney U is computed as a check).`,
    `- **regression**: p (Holm) < ${alpha}, the CI’s lower end is above the ${m}% limit **and** “above ${m}%” holds one-sided at ${alpha}/2 after Holm across the gated metrics. **equivalent**: TOST shows the overhead within ±${m}%; never from arms with zero spread. **inconclusive**: neither; more runs would decide (the smallest detectable effect is given). **incomparable**: the arms’ fingerprints differ in something that matters (${FINGERPRINT[device]}), so no regression verdict is given.`,
    `- Arms run interleaved (A B B A …) so drift and heat hit both alike; warm-up runs are excluded${device === 'gpu' ? '; samples taken while the GPU was throttled are flagged' : ''}.`,
    `- Only steady-state metrics gate (${device === 'gpu' ? 'GPU work' : 'the measured work'} and the bind-mounted data path); start-up phases and the writable layer are reported, never gated.`
  ].join('\n')
  return { id: 'definitions', kind: 'core', title: 'How to read this', body }
}
