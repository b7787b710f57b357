/** Which fingerprint facts make two sets of runs incomparable. */
import type { PartialFingerprint } from '../../results/index.js'

/** `arms`: native vs container of one check. `baseline`: this run vs the stored baseline of the same arm. */
export type FingerprintMode = 'arms' | 'baseline'

const FIELDS_BY_MODE: Record<FingerprintMode, (keyof PartialFingerprint)[]> = {
  arms: ['device', 'gpu_name', 'gpu_uuid', 'driver'],
  baseline: ['device', 'gpu_name', 'gpu_uuid', 'driver', 'image_digest', 'gpu_access', 'stack']
}

/** Fields that differ between two fingerprints; unknown (null/absent) values never count as different. */
export function fingerprintDifferences(
  base: PartialFingerprint | undefined,
  cand: PartialFingerprint | undefined,
  mode: FingerprintMode
): string[] {
  if (base === undefined || cand === undefined) return []
  const out: string[] = []
  for (const field of FIELDS_BY_MODE[mode]) {
    const a = base[field]
    const b = cand[field]
    if (a === undefined || a === null || a === '' || b === undefined || b === null || b === '') continue
    if (a !== b) out.push(`${field}: ${a} vs ${b}`)
  }
  return out
}
