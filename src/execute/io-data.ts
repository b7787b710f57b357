/**
 * When no dataset/checkpoint folder is given, the io workload gets fresh ones under the results folder:
 * a synthetic dataset (random bytes, so nothing compresses or dedups) and an empty checkpoint folder,
 * bound into the container exactly like user folders would be.
 */
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { MountSpec } from '../config/index.js'

export interface IoFolders {
  data: MountSpec
  checkpoint: MountSpec
  created: string[]
}

export function prepareIoFolders(
  out: string,
  data: MountSpec | null,
  checkpoint: MountSpec | null,
  datasetMb: number
): IoFolders {
  const created: string[] = []
  let dataSpec = data
  if (!dataSpec) {
    const dir = path.join(out, 'io', 'data')
    fs.mkdirSync(dir, { recursive: true })
    const files = 8
    const perFile = Math.max(1, Math.round((datasetMb * 1024 * 1024) / files))
    for (let i = 0; i < files; i++) {
      const file = path.join(dir, `shard-${String(i).padStart(3, '0')}.bin`)
      if (fs.existsSync(file) && fs.statSync(file).size === perFile) continue
      const fd = fs.openSync(file, 'w')
      for (let written = 0; written < perFile;) {
        const n = Math.min(8 * 1024 * 1024, perFile - written)
        fs.writeSync(fd, randomBytes(n))
        written += n
      }
      fs.closeSync(fd)
    }
    created.push(dir)
    dataSpec = { hostPath: dir, containerPath: '/data', readOnly: true }
  }
  let ckptSpec = checkpoint
  if (!ckptSpec) {
    const dir = path.join(out, 'io', 'checkpoints')
    fs.mkdirSync(dir, { recursive: true })
    // The container may run as another user: let it write here.
    fs.chmodSync(dir, 0o777)
    created.push(dir)
    ckptSpec = { hostPath: dir, containerPath: '/checkpoints', readOnly: false }
  }
  return { data: dataSpec, checkpoint: ckptSpec, created }
}
