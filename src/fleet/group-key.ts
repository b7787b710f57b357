/**
 * The pooling key: samples from several runners are pooled only when everything that can move a GPU
 * timing is the same — GPU model, driver, MIG mode, device, and per arm the image digest and the GPU
 * access mode, and the software stack each arm's processes recorded (interpreter, libraries, BLAS,
 * precision flags, performance-relevant environment). Host names and GPU UUIDs are left out on purpose: many identical machines are the point
 * of a fleet. Unknown facts (null) are a value of their own here, unlike fingerprintDifferences (where
 * null means "cannot tell"): a runner that could not read its driver is never pooled with one that could.
 */
import type { Arm, CheckSummary, Fingerprint } from '../types/index.js'
import type { GroupKey, GroupKeyArm } from './types.js'
import { at } from '../util/must.js'

/** Host-wide fields, taken from the baseline (first) arm's fingerprint. */
export const HOST_KEY_FIELDS = ['device', 'gpu_name', 'driver', 'mig_mode'] as const
/** Per-arm fields. */
export const ARM_KEY_FIELDS = ['image_digest', 'gpu_access', 'stack'] as const
export const KEY_FIELDS: string[] = [...HOST_KEY_FIELDS, 'arms', ...ARM_KEY_FIELDS]

type HostField = (typeof HOST_KEY_FIELDS)[number]
type ArmField = (typeof ARM_KEY_FIELDS)[number]

function fact(fp: Partial<Fingerprint> | undefined, field: HostField | ArmField): string | null {
  const v = fp?.[field]
  return v === undefined || v === null || v === '' ? null : String(v)
}

/** The key of one check: its arms (in order) and their fingerprints. */
export function groupKeyOf(summary: Pick<CheckSummary, 'arms' | 'fingerprints'>): GroupKey {
  const arms: Arm[] = summary.arms
  const first = arms[0] ? summary.fingerprints[arms[0].label] : undefined
  const key: GroupKey = {
    device: fact(first, 'device'),
    gpu_name: fact(first, 'gpu_name'),
    driver: fact(first, 'driver'),
    mig_mode: fact(first, 'mig_mode'),
    arms: arms.map((a): GroupKeyArm => ({
      label: a.label,
      kind: a.kind,
      image_digest: fact(summary.fingerprints[a.label], 'image_digest'),
      gpu_access: fact(summary.fingerprints[a.label], 'gpu_access'),
      stack: fact(summary.fingerprints[a.label], 'stack')
    }))
  }
  return key
}

/** A string equal for equal keys (field order fixed). */
export function groupKeyString(key: GroupKey): string {
  return JSON.stringify([
    key.device,
    key.gpu_name,
    key.driver,
    key.mig_mode,
    key.arms.map(a => [a.label, a.kind, a.image_digest, a.gpu_access, a.stack])
  ])
}

const show = (v: string | null): string => v ?? 'unknown'

/**
 * Why two keys do not pool, one entry per differing field, e.g. `driver: 570.86.15 vs 580.95.05` or
 * `image_digest (container): sha256:aaa… vs sha256:bbb…`. Empty when the keys are equal.
 */
export function groupKeyDifferences(a: GroupKey, b: GroupKey): string[] {
  const out: string[] = []
  for (const field of HOST_KEY_FIELDS)
    if (a[field] !== b[field]) out.push(`${field}: ${show(a[field])} vs ${show(b[field])}`)
  const labels = (k: GroupKey): string => k.arms.map(x => `${x.label}(${x.kind})`).join(',')
  if (labels(a) !== labels(b)) {
    out.push(`arms: ${a.arms.map(x => x.label).join(',')} vs ${b.arms.map(x => x.label).join(',')}`)
    return out // per-arm fields are only comparable between the same arms
  }
  a.arms.forEach((armA, i) => {
    const armB = at(b.arms, i)
    for (const field of ARM_KEY_FIELDS)
      if (armA[field] !== armB[field])
        out.push(`${field} (${armA.label}): ${show(armA[field])} vs ${show(armB[field])}`)
  })
  return out
}
