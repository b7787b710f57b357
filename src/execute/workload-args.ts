/** The workload command line, the same for every arm; only paths differ between host and container. */
import type { Config } from '../config.js'
import type { Workload } from '../types.js'

export type WorkloadSettings = Pick<Config, 'device' | 'matmulSize' | 'matmulDtype' | 'llmPreset' | 'checkpointMb' | 'seed'>

export interface IoPaths {
  data: string
  checkpoint: string
}

export function workloadArgs(workload: Workload, s: WorkloadSettings, io: IoPaths): string[] {
  const common = ['--device', s.device, '--seed', String(s.seed)]
  switch (workload) {
    case 'matmul':
      return [...common, '--size', String(s.matmulSize), '--dtype', s.matmulDtype]
    case 'llm':
      return [...common, '--preset', s.llmPreset]
    case 'io':
      return [...common, '--data', io.data, '--ckpt', io.checkpoint, '--ckpt-mb', String(s.checkpointMb)]
  }
}

/** Parameters recorded with every sample, so a baseline is only matched to the same work. */
export function workloadParams(workload: Workload, s: WorkloadSettings): Record<string, unknown> {
  switch (workload) {
    case 'matmul':
      return { device: s.device, size: s.matmulSize, dtype: s.matmulDtype }
    case 'llm':
      return { device: s.device, preset: s.llmPreset }
    case 'io':
      return { device: s.device, checkpoint_mb: s.checkpointMb }
  }
}
