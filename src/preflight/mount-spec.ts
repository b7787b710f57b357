/** io-check's mount specs: `HOST:CONTAINER[:ro|rw]` (a bind mount) or a bare path expected inside the image. */
import { statSync } from 'node:fs'
import path from 'node:path'
import { bindMountArgs } from '../tools/docker.js'
import type { BindMount } from '../types/index.js'
import { InputError } from '../util/errors.js'

/** `HOST:CONTAINER[:ro|rw]` (bind mount) or a bare `CONTAINER` path (expected inside the image). */
export type IoMountSpec =
  | { kind: 'bind'; spec: string; host: string; container: string; readOnly: boolean }
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
  const hostAbs = path.resolve(options.cwd ?? process.cwd(), host)
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

/** The bind mounts among the specs (image paths need none). */
export function bindMounts(specs: readonly IoMountSpec[]): BindMount[] {
  return specs.flatMap(m =>
    m.kind === 'bind' ? [{ host: m.host, container: m.container, readOnly: m.readOnly }] : []
  )
}

/** Container-runtime arguments for the specs (bind mounts only; image paths need none). */
export function mountArgs(specs: readonly IoMountSpec[]): string[] {
  return bindMountArgs(bindMounts(specs))
}
