/** The one-shot nvidia-smi query that settles the fields and GPUs before the sampling loop starts. */
import { queryGpuArgs, runNvidiaSmi } from '../tools/nvidia-smi.js'
import { firstLine } from '../util/text.js'
import { parseTelemetryLine } from './telemetry-parse.js'

const INVALID_FIELD_RE = /Field "([^"]+)" is not a valid field to query/i
const OLD_REASONS = 'clocks_throttle_reasons.active'
const NEW_REASONS = 'clocks_event_reasons.active'

type Probe = { ok: true; fields: string[]; ids: number[] | null } | { ok: false; reason: string }

/**
 * One-shot query with the same fields before the loop starts: older drivers reject fields they do
 * not know (power.draw.instant before ~R530, clocks_event_reasons.* before R535), and a rejected
 * field would make the looping process exit at once. Unknown fields are dropped (the old reasons name
 * is tried for the new one), each with a warning.
 */
export async function probeTelemetryFields(
  smi: string,
  fields: string[],
  ids: number[] | null,
  warn: (m: string) => void
): Promise<Probe> {
  const current = [...fields]
  let byId = ids
  for (let attempt = 0; attempt <= fields.length + 2; attempt++) {
    const r = await runNvidiaSmi(smi, queryGpuArgs(current, { ids: byId }))
    const text = `${r.stdout}\n${r.stderr}`
    if (r.exitCode === 127 && !INVALID_FIELD_RE.test(text))
      return { ok: false, reason: `nvidia-smi not found (${smi}): no GPU telemetry` }
    const invalid = INVALID_FIELD_RE.exec(text)?.[1]
    if (r.exitCode !== 0 && invalid !== undefined && current.includes(invalid) && invalid !== 'index') {
      const at = current.indexOf(invalid)
      if (invalid === NEW_REASONS && !current.includes(OLD_REASONS)) {
        current[at] = OLD_REASONS
        warn(
          `telemetry: this nvidia-smi does not know '${NEW_REASONS}'; using its older name '${OLD_REASONS}'`
        )
      } else {
        current.splice(at, 1)
        warn(`telemetry: this nvidia-smi does not know '${invalid}'; sampling without it`)
      }
      continue
    }
    if (r.exitCode !== 0 && byId !== null && invalid === undefined) {
      // Some builds refuse a list after --id; sample every GPU and filter here instead.
      warn(
        `telemetry: nvidia-smi refused --id=${byId.join(',')} (${firstLine(text, 200)}); sampling every GPU, keeping the ones asked for`
      )
      byId = null
      continue
    }
    if (r.exitCode !== 0)
      return {
        ok: false,
        reason: `nvidia-smi failed (exit ${r.exitCode}): ${firstLine(text, 200)}; no GPU telemetry`
      }
    const parsed = r.stdout
      .split('\n')
      .filter(l => l.trim() !== '')
      .map(l => parseTelemetryLine(l, current, Date.now()))
    const good = parsed.filter(p => p !== null)
    if (good.length === 0)
      return {
        ok: false,
        reason: `nvidia-smi gave no GPU samples: ${firstLine(text, 200) || 'empty output'}`
      }
    if (ids) {
      const seen = new Set(good.map(p => p.sample.gpu_index))
      const missing = ids.filter(i => !seen.has(i))
      if (missing.length === ids.length)
        return {
          ok: false,
          reason: `nvidia-smi shows no GPU ${ids.join(', ')} (it shows ${[...seen].join(', ')})`
        }
      if (missing.length > 0)
        warn(`telemetry: nvidia-smi shows no GPU ${missing.join(', ')}; sampling the others`)
    }
    for (const field of current) {
      if (field === 'index' || field === 'timestamp' || field === 'uuid') continue
      const at = current.indexOf(field)
      const raws = r.stdout
        .split('\n')
        .filter(l => l.trim() !== '')
        .map(l => l.split(',')[at]?.trim() ?? '')
      if (raws.every(v => v.startsWith('[') || v === '' || v === 'N/A'))
        warn(`telemetry: '${field}' reads ${raws[0] || 'empty'} on every GPU here; it will be empty`)
    }
    return { ok: true, fields: current, ids: byId }
  }
  return { ok: false, reason: 'nvidia-smi kept rejecting the telemetry fields; no GPU telemetry' }
}
