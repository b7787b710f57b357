/**
 * The package manifest and lock file agree with what they promise: `npm ci` can install from the lock on any
 * platform (every optional platform package is locked), `engines` is what the locked tree needs, and the
 * published package carries no runtime dependency (dist/ bundles them all).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import semver from 'semver'

interface LockEntry {
  version?: string
  engines?: { node?: string } | string[]
  optionalDependencies?: Record<string, string>
  dev?: boolean
  /** npm skips an optional package whose engines or platform do not fit, without a warning. */
  optional?: boolean
}
interface Manifest {
  license: string
  engines: { node: string }
  dependencies?: Record<string, string>
  files: string[]
}

const ROOT = process.cwd()
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>
}
const entries = Object.entries(lock.packages).filter(([key]) => key !== '')
const required = entries.filter(([, entry]) => !entry.optional)

/** npm's lookup: the dependency in the nearest node_modules folder walking up from the dependent. */
function resolveLocked(from: string, name: string): string | undefined {
  let dir = from
  for (;;) {
    const key = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`
    if (lock.packages[key]) return key
    if (!dir) return undefined
    const cut = dir.lastIndexOf('/node_modules/')
    dir = cut < 0 ? '' : dir.slice(0, cut)
  }
}

describe('package-lock.json', () => {
  it('locks every optional (platform) package, so npm ci works on any OS and CPU', () => {
    const missing = entries.flatMap(([key, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter(name => !resolveLocked(key, name))
        .map(name => `${key} -> ${name}`)
    )
    expect(missing).toEqual([])
  })

  it('engines.node is satisfied everywhere in the locked tree (no EBADENGINE on install)', () => {
    const floor = semver.minVersion(manifest.engines.node)
    expect(floor).not.toBeNull()
    const unmet = required
      .map(([key, entry]) => [key, Array.isArray(entry.engines) ? undefined : entry.engines?.node] as const)
      .filter(([, range]) => range && !semver.satisfies(floor!, range))
      .map(([key, range]) => `${key} needs node ${range}`)
    expect(unmet).toEqual([])
  })

  it('engines.node is no looser than needed: its floor is some locked package’s floor', () => {
    const floors = required
      .map(([, entry]) => (Array.isArray(entry.engines) ? undefined : entry.engines?.node))
      .filter((range): range is string => !!range && semver.validRange(range) !== null)
      .map(range => semver.minVersion(range)!.version)
    expect(floors).toContain(semver.minVersion(manifest.engines.node)!.version)
  })
})

describe('package.json', () => {
  it('has no runtime dependencies: dist/ is a self-contained bundle', () => {
    expect(manifest.dependencies ?? {}).toEqual({})
  })

  it('ships a LICENSE that matches the declared license', () => {
    expect(manifest.license).toBe('MIT')
    expect(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/)
  })
})
