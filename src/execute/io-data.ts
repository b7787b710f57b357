/**
 * When no dataset/checkpoint folder is given, the io workload gets fresh ones under the results folder:
 * a synthetic dataset (random bytes, so nothing compresses or dedups) and an empty checkpoint folder,
 * bound into the container exactly like user folders would be.
 */
import { randomBytes } from 'node:crypto'
import * as path from 'node:path'
import { CHECKPOINT_CONTAINER_PATH, DATA_CONTAINER_PATH } from '../config/index.js'
import type { Mount } from '../types/index.js'
import { ensureParents, safeChmodFolder, safeWriteStream, writeAll } from '../util/safe-fs.js'

export interface IoFolders {
  data: Mount
  checkpoint: Mount
  created: string[]
}

export function prepareIoFolders(
  out: string,
  data: Mount | null,
  checkpoint: Mount | null,
  datasetMb: number
): IoFolders {
  const created: string[] = []
  let dataSpec = data
  if (!dataSpec) {
    const dir = path.join(out, 'io', 'data')
    const files = 8
    const perFile = Math.max(1, Math.round((datasetMb * 1024 * 1024) / files))
    for (let i = 0; i < files; i++) {
      const file = path.join(dir, `shard-${String(i).padStart(3, '0')}.bin`)
      // No link followed, no linked parent below the results folder (docs/security.md).
      safeWriteStream(
        file,
        fd => {
          for (let written = 0; written < perFile;) {
            const n = Math.min(8 * 1024 * 1024, perFile - written)
            writeAll(fd, randomBytes(n))
            written += n
          }
        },
        { root: out }
      )
    }
    created.push(dir)
    dataSpec = { host: dir, container: DATA_CONTAINER_PATH, readOnly: true }
  }
  let ckptSpec = checkpoint
  if (!ckptSpec) {
    const dir = path.join(out, 'io', 'checkpoints')
    ensureParents(path.join(dir, 'x'), out)
    // The container may run as another user: let it write here (never chmod through a link).
    safeChmodFolder(dir, 0o777)
    created.push(dir)
    ckptSpec = { host: dir, container: CHECKPOINT_CONTAINER_PATH, readOnly: false }
  }
  return { data: dataSpec, checkpoint: ckptSpec, created }
}
