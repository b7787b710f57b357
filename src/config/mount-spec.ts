/**
 * Mounts, parsed once. The check's `data-path`/`checkpoint-path` become a `Mount` (types/) in config; io-check's
 * `--data`/`--ckpt` SPEC (`HOST:CONTAINER[:ro|rw]`, or a bare path expected inside the image) becomes an
 * `IoMountSpec` here. Both go through the mount policy (mount-policy.ts) on the resolved host path; what leaves
 * config is typed and never re-parsed.
 */
import { statSync } from 'node:fs'
import path from 'node:path'
import { bindMountArgs } from '../tools/docker.js'
import type { Mount } from '../types/index.js'
import { InputError } from '../util/errors.js'
import { judgeMount, refusalMessage, type MountPurpose } from './mount-policy.js'
import { safePath } from './paths.js'

/** Where the workloads see the dataset and the checkpoint folder inside the container. */
export const DATA_CONTAINER_PATH = '/data'
export const CHECKPOINT_CONTAINER_PATH = '/checkpoints'

/** io-check's target: a bind mount (a `Mount` plus the SPEC as given), or a path expected inside the image. */
export type IoMountSpec =
  | (Mount & { kind: 'bind'; spec: string })
  | { kind: 'image'; spec: string; container: string; readOnly: false }

const SPEC_ALLOWED =
  'HOST:CONTAINER[:ro|:rw] (bind mount of an existing host path) or an absolute CONTAINER path inside the image; ' +
  'paths without commas, colons or control characters'

function badPathChars(p: string): boolean {
  return p === '' || /[,:\p{Cc}]/u.test(p)
}

/** Parse and validate a mount spec. Host paths are resolved to absolute paths and must exist. */
export function parseMountSpec(
  spec: unknown,
  inputName: string,
  options: { cwd?: string } = {}
): IoMountSpec {
  if (typeof spec !== 'string') throw new InputError(inputName, spec, SPEC_ALLOWED)
  const s = spec.trim()
  const parts = s.split(':')
  const containerPath = (p: string | undefined): string => {
    if (p === undefined || badPathChars(p) || !p.startsWith('/'))
      throw new InputError(inputName, spec, SPEC_ALLOWED)
    const norm = path.posix.normalize(p).replace(/\/+$/, '')
    if (norm === '' || norm === '/')
      throw new InputError(inputName, spec, `${SPEC_ALLOWED}; not the container root`)
    return norm
  }
  if (parts.length === 1)
    return { kind: 'image', spec: s, container: containerPath(parts[0]), readOnly: false }
  if (parts.length > 3) throw new InputError(inputName, spec, SPEC_ALLOWED)
  const [host, container, mode] = parts
  if (mode !== undefined && mode !== 'ro' && mode !== 'rw')
    throw new InputError(inputName, spec, SPEC_ALLOWED)
  if (host === undefined || badPathChars(host)) throw new InputError(inputName, spec, SPEC_ALLOWED)
  // The one rule for a path from an input (config/parse.ts safePath): no link below the base, no runner folder.
  const hostAbs = safePath(inputName, host, options.cwd ?? process.cwd())
  try {
    statSync(hostAbs)
  } catch {
    throw new InputError(inputName, spec, `${SPEC_ALLOWED}; host path ${hostAbs} does not exist`)
  }
  return {
    kind: 'bind',
    spec: s,
    host: hostAbs,
    container: containerPath(container),
    readOnly: mode === 'ro'
  }
}

/**
 * io-check's SPEC as a user gives it: parsed, and its host path judged by the mount policy on the resolved
 * path (a folder, or a regular file where a file is named; docs/security.md).
 */
export function allowedMountSpec(
  raw: string,
  input: string,
  purpose: MountPurpose,
  options: { cwd?: string } = {}
): IoMountSpec {
  const spec = parseMountSpec(raw, input, options)
  if (spec.kind !== 'bind') return spec
  const d = judgeMount({
    input,
    path: spec.host,
    kind: statSync(spec.host).isDirectory() ? 'folder' : 'file',
    purpose
  })
  if (!d.allowed) throw new InputError(input, raw, refusalMessage(d))
  return spec
}

/** A config mount as io-check's target; `spec` is display text for the report, never parsed again. */
export function bindSpecOf(m: Mount): IoMountSpec {
  return { kind: 'bind', spec: `${m.host}:${m.container}${m.readOnly ? ':ro' : ''}`, ...m }
}

/** The bind mounts among the specs (image paths need none). */
export function bindMounts(specs: readonly IoMountSpec[]): Mount[] {
  return specs.flatMap(m =>
    m.kind === 'bind' ? [{ host: m.host, container: m.container, readOnly: m.readOnly }] : []
  )
}

/** Container-runtime arguments for the specs (bind mounts only; image paths need none). */
export function mountArgs(specs: readonly IoMountSpec[]): string[] {
  return bindMountArgs(bindMounts(specs))
}
