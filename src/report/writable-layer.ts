/** The container's writable layer (OverlayFS tax): `info` comparisons, reported and never gated. Pure. */
import type { CheckSummary, Comparison } from '../types/index.js'
import { armRank } from './arms.js'
import { comparisonTable } from './comparison-table.js'
import { analysisNotes } from './notes.js'
import type { Section } from './section.js'
import { setting } from '../util/setting-name.js'

const TITLE = 'Writable layer (OverlayFS tax, informational)'
/** The same figures when no arm ran in a container: there is no writable layer, only each arm's file system. */
const NO_CONTAINER_TITLE = 'File I/O (informational)'
const BIND_MOUNT = /^(data_read_mb_s|ckpt_write_mb_s)$/

// `regression` would read as a failed gate; these never gate.
const WORDS: Record<Comparison['verdict'], string> = {
  regression: 'worse',
  improvement: 'improvement',
  equivalent: 'equivalent',
  inconclusive: 'inconclusive',
  incomparable: 'incomparable'
}

/**
 * Both arms read and write the bind-mounted path on one file system, so a difference there is the disk's and the
 * page cache's, not the image's: no "improvement" or "worse" for it (−37% read at 2 runs per arm in 5 of 20
 * same-image checks, docs/evidence/2026-11-27-layouts-final.md).
 */
const bindMountWord = (c: Comparison): string | undefined =>
  BIND_MOUNT.test(c.metric) && (c.verdict === 'improvement' || c.verdict === 'regression')
    ? 'differs (disk noise)'
    : undefined

export function writableLayerSection(summary: CheckSummary): Section | null {
  const info = summary.analysis?.comparisons.filter(c => c.scope === 'info') ?? []
  if (!info.length) return null
  const table = comparisonTable(info, {
    armRank: armRank(summary),
    words: WORDS,
    holm: false,
    wordOf: bindMountWord
  })
  const notes = analysisNotes(summary, 'info').join('\n')
  if (!summary.arms.some(a => a.kind === 'container')) {
    // A section about a container's writable layer in a check that ran none would describe what did not run.
    const body = [
      `## ${NO_CONTAINER_TITLE}`,
      'No arm ran in a container, so no writable layer was measured: these are the io workload’s file-system ' +
        'figures (scratch, small files, checkpoint and data paths) of each arm, reported and never gated.',
      table,
      notes
    ]
      .filter(Boolean)
      .join('\n\n')
    return { id: 'writable-layer', kind: 'core', title: NO_CONTAINER_TITLE, body }
  }
  const bindInfo = info.some(c => BIND_MOUNT.test(c.metric))
  const body = [
    `## ${TITLE}`,
    'These measure writes into the container’s own file system (copy-up of image files, small files, scratch) ' +
      'against the same work natively. They never gate, because a job that keeps data and checkpoints on bind mounts ' +
      'never pays them (seed 003); ' +
      (bindInfo
        ? 'the bind-mounted data path (`data_read_mb_s`, `ckpt_write_mb_s`) is listed here too: both arms read and write ' +
          'the same file system through the mount, so its MB/s difference is disk and page-cache noise, not container ' +
          'overhead. io gates through its rule instead (data and checkpoints on bind mounts, see Preflight); ' +
          `\`${setting('gate-io-throughput', 'true')}\` makes the MB/s gate.`
        : 'the bind-mounted data path (`data_read_mb_s`, `ckpt_write_mb_s`) is in the gated table.'),
    table,
    notes
  ]
    .filter(Boolean)
    .join('\n\n')
  return { id: 'writable-layer', kind: 'core', title: TITLE, body }
}
