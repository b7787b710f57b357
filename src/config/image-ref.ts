/** Image references, parsed once from the inputs and passed on typed: Docker's reference grammar, sha256 only. */
import { InputError } from '../util/errors.js'

// Docker's reference grammar (distribution/reference), restricted to sha256 digests.
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])'
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]{1,5})?`
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*'
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`
const TAG = '[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}'
const DIGEST = 'sha256:[a-f0-9]{64}'
const REFERENCE_RE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`)
const IMAGE_ID_RE = new RegExp(`^${DIGEST}$`)

const REF_ALLOWED =
  'an image reference [registry[:port]/]repo[:tag][@sha256:<64 hex>] (lower-case repository, no spaces or shell ' +
  'characters), or a local image ID sha256:<64 hex>'

export interface ImageRef {
  /** As given. */
  ref: string
  /** Repository with registry, e.g. `nvcr.io/nvidia/pytorch`; null for a bare image ID. */
  repository: string | null
  tag: string | null
  digest: string | null
}

/**
 * Validate an image reference strictly before it goes anywhere near a command line.
 * Throws InputError naming `inputName`.
 */
export function validateImageRef(ref: unknown, inputName: string): ImageRef {
  if (typeof ref !== 'string') throw new InputError(inputName, ref, REF_ALLOWED)
  // No trimming: any whitespace or control character (a stray newline included) is rejected.
  const r = ref
  if (r.length === 0 || r.length > 512 || /[\s\p{Cc}]/u.test(r))
    throw new InputError(inputName, ref, REF_ALLOWED)
  if (IMAGE_ID_RE.test(r)) return { ref: r, repository: null, tag: null, digest: r }
  const m = REFERENCE_RE.exec(r)
  if (!m?.[1] || m[1].length > 255) throw new InputError(inputName, ref, REF_ALLOWED)
  return { ref: r, repository: m[1], tag: m[2] ?? null, digest: m[3] ?? null }
}

/** `pytorch` → `docker.io/library/pytorch`, so RepoDigests compare across spellings. */
export function normalizeRepository(repository: string): string {
  const first = repository.split('/')[0] ?? ''
  const hasDomain =
    repository.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')
  if (hasDomain) return repository
  return repository.includes('/') ? `docker.io/${repository}` : `docker.io/library/${repository}`
}

/** Pick the content digest for `ref` from RepoDigests (`repo@sha256:...`): the ref's own digest, else its repository's. */
export function pickRepoDigest(ref: ImageRef, repoDigests: readonly string[]): string | null {
  if (ref.digest && !IMAGE_ID_RE.test(ref.ref)) return ref.digest
  const parsed = repoDigests
    .map(d => {
      const at = d.lastIndexOf('@')
      return at < 0 ? null : { repo: d.slice(0, at), digest: d.slice(at + 1) }
    })
    .filter((d): d is { repo: string; digest: string } => d !== null && IMAGE_ID_RE.test(d.digest))
  if (ref.repository) {
    const want = normalizeRepository(ref.repository)
    const same = parsed.find(d => normalizeRepository(d.repo) === want)
    if (same) return same.digest
  }
  return parsed[0]?.digest ?? null
}

/** The parsed reference when `ref` is a valid one (an image ID included), else null. */
export function imageRefOrNull(ref: string): ImageRef | null {
  return IMAGE_ID_RE.test(ref) || REFERENCE_RE.test(ref) ? validateImageRef(ref, 'image') : null
}

/**
 * A reference parsed by config passes as is; a string (a library caller's or a CLI flag's) is validated here
 * first, since it goes onto a command line.
 */
export function imageRefOf(ref: ImageRef | string, inputName = 'image'): ImageRef {
  return typeof ref === 'string' ? validateImageRef(ref, inputName) : ref
}
