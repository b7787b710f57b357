/** The arms' fingerprints side by side (the fields that must match in bold), and the workload parameters. Pure. */
import type { CheckSummary, CommandSource, Fingerprint } from '../types/index.js'
import { armLabels } from './arms.js'
import { cell, code, inline, isSecretKey } from './format.js'
import type { Section } from './section.js'
import type { Table } from './table.js'
import { table } from './table.js'

/** The environment table's rows, in order, and their labels (not analyze's fingerprint columns). */
const FINGERPRINT_ROWS: Partial<Record<keyof Fingerprint, string>> = {
  host: 'Host',
  device: 'Device',
  gpu_name: 'GPU',
  gpu_uuid: 'GPU UUID',
  driver: 'Driver',
  cuda: 'CUDA',
  image: 'Image',
  image_digest: 'Image digest',
  runtime: 'Runtime',
  runtime_version: 'Runtime version',
  gpu_access: 'GPU access',
  mig_mode: 'MIG mode',
  persistence_mode: 'Persistence mode',
  clocks: 'Clocks'
}

/** Fields that must be equal for the arms to be comparable: shown in bold where they differ. */
const MUST_MATCH: ReadonlySet<keyof Fingerprint> = new Set([
  'host',
  'device',
  'gpu_name',
  'gpu_uuid',
  'driver',
  'mig_mode',
  'persistence_mode',
  'clocks'
])

/** Fields whose values are identifiers, shown as code. */
const CODE_FIELDS: ReadonlySet<keyof Fingerprint> = new Set(['image', 'image_digest', 'gpu_uuid'])

/** Where a user command was named: the workflow's own, or the pull request's choice (the checked-out config file). */
const COMMAND_SOURCE: Record<CommandSource, string> = {
  workflow: 'command from the workflow',
  'config-file': 'command from the checked-out config file'
}

function workloadParams(summary: CheckSummary): string[] {
  const lines: string[] = []
  const commands = new Map((summary.config.commands ?? []).map(c => [c.name, c]))
  for (const w of summary.config.workloads) {
    const run = summary.runs.find(r => r.workload === w && !r.warmup)
    if (!run) continue
    const command = commands.get(w)
    const source = command ? ` (${COMMAND_SOURCE[command.source]})` : ''
    const params = Object.entries(run.params)
      .filter(([k]) => !isSecretKey(k))
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    if (params.length) lines.push(`- ${code(w)}${source}: ${inline(params.join(', '))}`)
  }
  return lines
}

export function environmentSection(summary: CheckSummary): Section {
  const envs = armLabels(summary).filter(e => summary.fingerprints[e])
  for (const e of Object.keys(summary.fingerprints)) if (!envs.includes(e)) envs.push(e)
  let body = '## Environment\n\n'
  if (!envs.length) body += 'No environment fingerprint was recorded.'
  else {
    const rows: Table = [['Field', ...envs.map(cell)]]
    const same: string[] = []
    let differs = false
    for (const [key, label] of Object.entries(FINGERPRINT_ROWS) as [keyof Fingerprint, string][]) {
      const values = envs.map(e => summary.fingerprints[e]?.[key] ?? null)
      const distinct = new Set(values.map(v => String(v))).size
      const mismatch = MUST_MATCH.has(key) && distinct > 1
      differs ||= mismatch
      const show = (v: string | null): string => {
        const text = v === null ? '–' : CODE_FIELDS.has(key) ? code(v) : cell(v)
        return mismatch ? `**${text}**` : text
      }
      // Recorded by no arm (GPU fields on device cpu): a row of dashes says nothing.
      if (values.every(v => v === null)) continue
      // With many arms, a value repeated in every column hides the ones that differ: say it once.
      if (envs.length > 2 && distinct === 1) {
        const [shared] = values
        if (shared !== null && shared !== undefined) same.push(`${label} ${show(shared)}`)
        continue
      }
      rows.push([mismatch ? `**${label}** (differs)` : label, ...values.map(show)])
    }
    if (same.length) body += `Same in every arm: ${same.join(' · ')}.\n\n`
    if (rows.length > 1) body += table(rows)
    if (differs) body += '\n\nFields in bold must match for the arms to be comparable.'
  }
  const params = workloadParams(summary)
  if (params.length) body += `\n\nWorkload parameters:\n\n${params.join('\n')}`
  body += `\n\n<sub>gpu-overhead-action ${inline(summary.tool_version)} · started ${inline(summary.started_at)} · finished ${inline(summary.finished_at)}</sub>`
  return { id: 'environment', kind: 'core', title: 'Environment', body }
}
