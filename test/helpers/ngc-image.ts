/**
 * The NGC-like test images (test/__fixtures__/images/ngc-like): built FROM the python3 + NumPy test image
 * with `docker build` (nothing pulled), an ENTRYPOINT that prints NGC's banner and NOTE on stdout and a
 * warning on stderr, entrypoint.d scripts, NGC's ENV and a WORKDIR; `user` builds the non-root variant.
 * Variants add one entrypoint.d script (a hostile image, an entrypoint that never runs its command).
 * Tags are this helper's own (local/gpu-overhead-ngc:*): callers remove them by name with removeNgcImages.
 */
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { execCapture } from '../../src/util/exec.js'
import { ensurePythonImage, imagePath } from './docker-image.js'

export const NGC_FIXTURE = path.resolve('test/__fixtures__/images/ngc-like')
const REPO = 'local/gpu-overhead-ngc'

export interface NgcVariant {
  /** Tag suffix, e.g. `root`, `user`, `fake-events`. */
  name: string
  /** USER of the image (`1000:1000` for the non-root variant); root by default. */
  user?: string
  /** An extra entrypoint.d script (sourced by the entrypoint before `exec "$@"`). */
  extraScript?: string
  /** Replaces the entrypoint's last line (`exec "$@"`), e.g. `exit 0`. */
  entrypointEnd?: string
  /** Host files copied into the image at their own paths (usr-merged), e.g. a tool and its libraries. */
  hostFiles?: readonly string[]
}

export async function buildNgcImage(v: NgcVariant, runtime = 'docker'): Promise<string> {
  const base = await ensurePythonImage()
  const tag = `${REPO}:${v.name}`
  const ctx = mkdtempSync(path.join(tmpdir(), 'ngc-like-'))
  try {
    cpSync(NGC_FIXTURE, ctx, { recursive: true })
    if (v.extraScript) {
      const f = path.join(ctx, 'entrypoint.d', '60-extra.sh')
      writeFileSync(f, v.extraScript)
      chmodSync(f, 0o755)
    }
    if (v.entrypointEnd) {
      const f = path.join(ctx, 'nvidia_entrypoint.sh')
      writeFileSync(
        f,
        `#!/bin/sh\nfor s in /opt/nvidia/entrypoint.d/*.sh; do . "$s"; done\n${v.entrypointEnd}\n`
      )
      chmodSync(f, 0o755)
    }
    if (v.hostFiles?.length) {
      // A layer on top: the fixture's Dockerfile stays as the GPU host builds it (scripts/gpu-host).
      for (const file of v.hostFiles) {
        const dest = path.join(ctx, 'host-files', imagePath(file))
        mkdirSync(path.dirname(dest), { recursive: true })
        copyFileSync(file, dest) // keeps the mode (hyperfine stays executable)
      }
      appendFileSync(path.join(ctx, 'Dockerfile'), '\nCOPY host-files/ /\n')
    }
    const r = await execCapture(
      runtime,
      [
        'build',
        '-q',
        '--build-arg',
        `BASE=${base}`,
        '--build-arg',
        `USER=${v.user ?? '0:0'}`,
        '-t',
        tag,
        ctx
      ],
      { timeoutMs: 300_000 }
    )
    if (r.exitCode !== 0) throw new Error(`docker build of ${tag} failed: ${r.stderr.trim().slice(-500)}`)
  } finally {
    rmSync(ctx, { recursive: true, force: true })
  }
  return tag
}

export async function removeNgcImages(tags: readonly string[], runtime = 'docker'): Promise<void> {
  if (tags.length) await execCapture(runtime, ['rmi', '-f', ...tags], { timeoutMs: 60_000 })
}
