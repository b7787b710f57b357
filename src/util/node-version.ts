/**
 * The oldest Node the bundles support: package.json's `engines` (a contract test keeps them equal). Older
 * Nodes (Debian 12's 18) load the bundles and fail later in odd places, so the entry points refuse them
 * first, in one line. No imports: this module is evaluated before any other in the bundles.
 */
export const MIN_NODE = '20.19.0'

const parts = (v: string): number[] => v.split('.').map(p => Number.parseInt(p, 10) || 0)

/** The refusal for `version` (default: this process's Node), or null when it is new enough. */
export function unsupportedNode(version: string = process.versions.node): string | null {
  const [have, need] = [parts(version), parts(MIN_NODE)]
  for (const [i, part] of need.entries()) {
    if ((have[i] ?? 0) > part) return null
    if ((have[i] ?? 0) < part)
      return `gpu-overhead needs Node ${MIN_NODE} or newer (package.json engines), this is Node ${version}; install Node 20.19+, 22 or 24 (README, "Prerequisites")`
  }
  return null
}
