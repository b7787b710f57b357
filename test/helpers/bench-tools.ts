/**
 * The benchmark tools the own-workload examples run (examples/workloads/): hyperfine (Debian `hyperfine`) and
 * pytest-benchmark for Debian's python3 (Debian `python3-pytest-benchmark`). The native arm runs the host's;
 * the container arm gets the same files, copied from the host into the test image (`benchToolFiles`), as the
 * image's python3 and NumPy are (test/helpers/docker-image.ts). `.ci/run` installs both packages.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { HOST_PYTHON } from './cli.js'
import { sharedLibraries } from './docker-image.js'

export const HYPERFINE = '/usr/bin/hyperfine'
/** Where Debian's python3 packages keep their modules (in the image at the same path, beside NumPy). */
const DIST_PACKAGES = '/usr/lib/python3/dist-packages/'

const hasHyperfine = (): boolean => spawnSync(HYPERFINE, ['--version']).status === 0
const hasPytestBenchmark = (): boolean =>
  spawnSync(HOST_PYTHON, ['-c', 'import pytest, pytest_benchmark']).status === 0

/** The Debian packages of the tools this host lacks (empty: both are here). */
export function missingBenchPackages(): string[] {
  return [
    ...(hasHyperfine() ? [] : ['hyperfine']),
    ...(hasPytestBenchmark() ? [] : ['python3-pytest-benchmark'])
  ]
}

function dpkg(args: string[]): string {
  const r = spawnSync('dpkg-query', args, { encoding: 'utf8' })
  return r.status === 0 ? r.stdout : ''
}

/** `pkg` and the python3-* packages it depends on, transitively, as far as they are installed. */
function pythonPackageClosure(pkg: string): string[] {
  const seen = new Set<string>()
  const todo = [pkg]
  while (todo.length) {
    const p = todo.pop()!
    if (seen.has(p) || !dpkg(['-W', '-f=${Status}', p]).includes('installed')) continue
    seen.add(p)
    for (const alt of dpkg(['-W', '-f=${Depends},${Pre-Depends}', p]).split(/[,|]/)) {
      const name = alt.trim().split(/[\s:(]/)[0] ?? ''
      if (/^python3-[a-z0-9.+-]+$/.test(name) && name !== 'python3-minimal') todo.push(name)
    }
  }
  return [...seen]
}

/**
 * Host files that give an image built from the host's python3 (docker-image.ts) the tools: the hyperfine binary
 * and its shared libraries, and every module file of python3-pytest-benchmark and the python3-* packages it
 * needs (pytest, pluggy, cpuinfo, …; their dist-info too, where pytest finds the plugin's entry point).
 */
export async function benchToolFiles(): Promise<string[]> {
  const modules = pythonPackageClosure('python3-pytest-benchmark')
    .flatMap(p => dpkg(['-L', p]).split('\n'))
    .filter(f => f.startsWith(DIST_PACKAGES) && existsSync(f) && statSync(f).isFile())
  return [HYPERFINE, ...(await sharedLibraries([HYPERFINE])), ...modules]
}
