/** Results artifact: raw results, telemetry, report, summary and the paper-shaped CSVs. */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { DefaultArtifactClient } from '@actions/artifact'
import type { CheckSummary, TelemetrySample } from '../types/index.js'
import { getErrorMessage } from '../util/errors.js'
import { paperCsv, paperCsvWorkloads } from './paper-csv.js'
import { safeReplace } from '../util/safe-fs.js'

/** Artifact names may not contain these (upload-artifact's rule). */
export function artifactName(raw: string): string {
  return raw.replace(/[":<>|*?\\/\r\n]/g, '-').slice(0, 200) || 'gpu-overhead'
}

/** Write paper.csv (one workload) or paper-<workload>.csv (several) into dir; returns the paths. */
export function writePaperCsvs(
  summary: CheckSummary,
  dir: string,
  samples?: readonly TelemetrySample[]
): string[] {
  const workloads = paperCsvWorkloads(summary)
  if (!workloads.length) return []
  return workloads.map(w => {
    const file = path.join(
      dir,
      workloads.length === 1 ? 'paper.csv' : `paper-${w.replace(/[^\w.-]/g, '_')}.csv`
    )
    safeReplace(file, paperCsv(summary, samples, w), { root: dir })
    return file
  })
}

export interface UploadOutcome {
  id: number | null
  uploaded: string[]
  missing: string[]
  error: string | null
}

/** Upload what exists; missing files are listed, a failing upload is returned as an error, never thrown. */
export async function uploadArtifact(name: string, files: string[], rootDir: string): Promise<UploadOutcome> {
  const absolute = [...new Set(files.map(f => path.resolve(rootDir, f)))]
  const uploaded = absolute.filter(f => existsSync(f))
  const missing = absolute.filter(f => !existsSync(f))
  if (!uploaded.length) return { id: null, uploaded, missing, error: 'no files to upload' }
  try {
    const res = await new DefaultArtifactClient().uploadArtifact(
      artifactName(name),
      uploaded,
      path.resolve(rootDir)
    )
    return { id: res.id ?? null, uploaded, missing, error: null }
  } catch (error) {
    return { id: null, uploaded, missing, error: getErrorMessage(error) }
  }
}
