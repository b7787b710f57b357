/**
 * A small local test image with python3 + NumPy, built with `docker import` from the host's own
 * files (nothing can be pulled here): Debian's python3 (whatever version /usr/bin/python3 is: the one
 * python3-numpy is built for, not a pyenv or venv shim on PATH), its standard library, Debian's NumPy with OpenBLAS, dash as /bin/sh, a few coreutils, and every shared library
 * `ldd` lists for them. Idempotent and cached by tag; concurrent callers
 * (jest workers) wait on a lock directory instead of building twice.
 *
 *   const tag = await ensurePythonImage()            // local/gpu-overhead-test:py
 *   docker run --rm --network none <tag> python3 -c 'import numpy'
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { execCapture } from '../../src/util/exec.js'

export const PYTHON_IMAGE_TAG = 'local/gpu-overhead-test:py'
/** The same image with OpenBLAS behind NumPy, whatever BLAS the host's NumPy uses (CI's: the reference BLAS). */
export const OPENBLAS_IMAGE_TAG = 'local/gpu-overhead-test:py-openblas'
/** The same image with the reference BLAS behind NumPy, whatever BLAS the host's NumPy uses. */
export const REFERENCE_BLAS_IMAGE_TAG = 'local/gpu-overhead-test:py-refblas'
export type BlasChoice = 'host' | 'openblas' | 'reference'
const LIBDIR = '/usr/lib/x86_64-linux-gnu'
/**
 * The files an image's BLAS is taken from, outside the alternatives system (whatever the host's alternatives
 * say): Debian's OpenBLAS (package libopenblas0-pthread) and its reference BLAS and LAPACK (libblas3, liblapack3).
 */
const BLAS_FILES: Record<Exclude<BlasChoice, 'host'>, readonly string[]> = {
  openblas: ['libblas.so.3', 'liblapack.so.3', 'libopenblas.so.0'].map(
    f => `${LIBDIR}/openblas-pthread/${f}`
  ),
  reference: [`${LIBDIR}/blas/libblas.so.3`, `${LIBDIR}/lapack/liblapack.so.3`]
}
/** Whether this host has the files an image with that BLAS is built from. */
export const hasBlasFiles = (blas: Exclude<BlasChoice, 'host'>): boolean =>
  BLAS_FILES[blas].every(f => existsSync(f))
export const hasOpenblasFiles = (): boolean => hasBlasFiles('openblas')
/** Bump when the image content changes; an image with another marker is rebuilt. */
const MARKER_ENV = 'GPU_OVERHEAD_TEST_IMAGE'
const MARKER_BASE = 'py-v2'

/** Where the host's python3 keeps what the image needs; asked from python3 itself, never assumed. */
interface HostPython {
  /** The interpreter binary, links resolved (e.g. /usr/bin/python3.11). */
  exe: string
  stdlib: string
  numpy: string
  /** `3.11`: part of the image marker, so a host upgrade rebuilds the image. */
  version: string
}

const PROBE =
  'import os, sys, sysconfig, numpy; ' +
  'print(os.path.realpath(sys.executable)); print(sysconfig.get_paths()["stdlib"]); ' +
  'print(os.path.dirname(numpy.__file__)); print("%d.%d" % sys.version_info[:2])'

/** The distribution's interpreter, the one `apt-get install python3 python3-numpy` provides. */
const SYSTEM_PYTHON = '/usr/bin/python3'

async function hostPython(): Promise<HostPython> {
  const res = await execCapture(SYSTEM_PYTHON, ['-c', PROBE])
  const [exe, stdlib, numpy, version] = res.stdout.trim().split('\n')
  if (res.exitCode !== 0 || !exe || !stdlib || !numpy || !version)
    throw new Error(
      `cannot build the test image: python3 with NumPy is needed on this host (apt-get install python3 python3-numpy): ${res.stderr.trim().slice(-300)}`
    )
  return { exe, stdlib, numpy, version }
}

async function marker(blas: BlasChoice = 'host'): Promise<string> {
  return `${MARKER_BASE}-${(await hostPython()).version}${blas === 'host' ? '' : `-${blas}`}`
}
const TOOLS = [
  'cat',
  'ls',
  'dd',
  'mkdir',
  'rm',
  'sleep',
  'true',
  'false',
  'env',
  'id',
  'sync',
  'stat',
  'head',
  'touch'
]

async function run(tool: string, args: readonly string[]): Promise<string> {
  const res = await execCapture(tool, args)
  if (res.exitCode !== 0) {
    throw new Error(
      `${tool} ${args.slice(0, 4).join(' ')} failed (exit ${res.exitCode}): ${res.stderr.trim().slice(-500)}`
    )
  }
  return res.stdout
}

async function imageMarker(tag: string, runtime: string): Promise<string | null> {
  const res = await execCapture(runtime, ['image', 'inspect', '--format', '{{json .Config.Env}}', tag])
  if (res.exitCode !== 0) return null
  const env = JSON.parse(res.stdout) as string[] | null
  const kv = (env ?? []).find(e => e.startsWith(`${MARKER_ENV}=`))
  return kv ? kv.slice(MARKER_ENV.length + 1) : ''
}

function walkSharedObjects(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    if (entry.isDirectory()) walkSharedObjects(p, out)
    else if (entry.isFile() && entry.name.endsWith('.so')) out.push(p)
  }
}

/** Library paths (as the loader finds them) that `ldd` lists for the given ELF files. */
export async function sharedLibraries(files: readonly string[]): Promise<Set<string>> {
  const libs = new Set<string>()
  for (const f of files) {
    const res = await execCapture('ldd', [f])
    if (res.exitCode !== 0) continue // static, or not an ELF object
    for (const line of res.stdout.split('\n')) {
      const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(0x/.exec(line)
      if (m?.[1]) libs.add(m[1])
    }
  }
  return libs
}

/** Host path → path in the usr-merged image root (`/lib/x` → `usr/lib/x`). */
export function imagePath(hostPath: string): string {
  const p = hostPath.replace(/^\/+/, '')
  if (/^(lib|lib64|bin|sbin)\//.test(p)) return `usr/${p}`
  return p
}

async function buildPythonImage(
  tag: string,
  runtime: string,
  blas: BlasChoice,
  smoke: boolean
): Promise<void> {
  const { exe: PYTHON, stdlib: STDLIB, numpy: NUMPY } = await hostPython()
  const MARKER = await marker(blas)
  const blasFiles = blas === 'host' ? [] : BLAS_FILES[blas]
  for (const p of [PYTHON, STDLIB, NUMPY, '/usr/bin/dash', ...blasFiles]) {
    if (!existsSync(p))
      throw new Error(
        `cannot build ${tag}: ${p} is missing on this host (apt-get install python3 python3-numpy dash libopenblas0-pthread libblas3 liblapack3)`
      )
  }
  const work = mkdtempSync(path.join(tmpdir(), 'gpu-overhead-image-'))
  try {
    const root = path.join(work, 'root')
    for (const d of [
      'usr/bin',
      'usr/sbin',
      'usr/lib/x86_64-linux-gnu',
      'usr/lib64',
      'etc',
      'proc',
      'sys',
      'dev',
      'root',
      'tmp',
      'var/tmp',
      'work'
    ]) {
      mkdirSync(path.join(root, d), { recursive: true })
    }
    for (const d of ['tmp', 'var/tmp']) chmodSync(path.join(root, d), 0o1777)
    for (const l of ['bin', 'sbin', 'lib', 'lib64']) symlinkSync(`usr/${l}`, path.join(root, l))

    const binaries = [PYTHON, '/usr/bin/dash', ...TOOLS.map(t => `/usr/bin/${t}`).filter(existsSync)]
    for (const b of binaries) copyFileSync(b, path.join(root, 'usr/bin', path.basename(b)))
    const exeName = path.basename(PYTHON)
    if (exeName !== 'python3') symlinkSync(exeName, path.join(root, 'usr/bin/python3'))
    symlinkSync(exeName, path.join(root, 'usr/bin/python'))
    symlinkSync('dash', path.join(root, 'usr/bin/sh'))

    const elfs = [...binaries, ...blasFiles]
    walkSharedObjects(NUMPY, elfs)
    walkSharedObjects(path.join(STDLIB, 'lib-dynload'), elfs)
    for (const lib of await sharedLibraries(elfs)) {
      const dest = path.join(root, imagePath(lib))
      mkdirSync(path.dirname(dest), { recursive: true })
      copyFileSync(lib, dest) // follows symlinks (Debian's alternatives for libblas/liblapack)
    }
    // The chosen BLAS takes the names NumPy links against, whatever the host's alternatives say.
    for (const file of blasFiles)
      copyFileSync(file, path.join(root, 'usr/lib/x86_64-linux-gnu', path.basename(file)))
    writeFileSync(
      path.join(root, 'etc/passwd'),
      'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n'
    )
    writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n')

    // One archive: the skeleton first, then the standard library and NumPy straight from the host.
    const tar = path.join(work, 'rootfs.tar')
    await run('tar', [
      '-cf',
      tar,
      ...['test', 'idlelib', 'tkinter', 'turtledemo', 'ensurepip', 'lib2to3/tests'].map(
        d => `--exclude=${STDLIB.slice(1)}/${d}`
      ),
      `--exclude=${NUMPY.slice(1)}/*/tests`,
      '-C',
      root,
      '.',
      '-C',
      '/',
      STDLIB.slice(1),
      // NumPy inside the standard library's tree (site-packages) is in the archive already.
      ...(NUMPY.startsWith(`${STDLIB}/`) ? [] : [NUMPY.slice(1)])
    ])
    await run(runtime, [
      'import',
      '-c',
      `ENV ${MARKER_ENV}=${MARKER}`,
      '-c',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      '-c',
      'WORKDIR /work',
      '-c',
      'CMD ["python3"]',
      tar,
      tag
    ])
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  if (!smoke) return
  const ran = await execCapture(runtime, [
    'run',
    '--rm',
    '--network',
    'none',
    tag,
    'python3',
    '-c',
    'import numpy, tempfile, json; print(numpy.__version__)'
  ])
  if (ran.exitCode !== 0)
    throw new Error(`built ${tag}, but python3/numpy do not run in it: ${ran.stderr.trim()}`)
}

async function sleep(ms: number): Promise<void> {
  await new Promise(resolve => setTimeout(resolve, ms))
}

/**
 * Build the python3 + NumPy test image once (cached by tag) and return its tag.
 * Safe to call from several jest workers at once. `smoke: false` leaves out the trial run after a build, for a
 * caller that makes its own (test/helpers/requires.ts `podmanRuns`: a runtime that cannot start containers on
 * this host is a reason to skip, not a broken image).
 */
export async function ensurePythonImage(
  tag: string = PYTHON_IMAGE_TAG,
  runtime = 'docker',
  blas: BlasChoice = 'host',
  options: { smoke?: boolean } = {}
): Promise<string> {
  const MARKER = await marker(blas)
  if ((await imageMarker(tag, runtime)) === MARKER) return tag
  const lock = path.join(tmpdir(), `gpu-overhead-image-${tag.replace(/[^a-zA-Z0-9]+/g, '_')}.lock`)
  const deadline = Date.now() + 10 * 60_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      // Another worker builds: wait for it; take over a lock left by a killed process.
      if ((await imageMarker(tag, runtime)) === MARKER) return tag
      try {
        if (Date.now() - statSync(lock).mtimeMs > 5 * 60_000) rmSync(lock, { recursive: true, force: true })
      } catch {
        // gone meanwhile
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for another build of ${tag} (lock ${lock})`)
      await sleep(500)
    }
  }
  try {
    if ((await imageMarker(tag, runtime)) !== MARKER)
      await buildPythonImage(tag, runtime, blas, options.smoke ?? true)
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
  return tag
}

/**
 * The python3 + NumPy test image under a tag of the caller's own, for a test file that removes its image
 * afterwards on an engine other test files share: the shared image (ensurePythonImage), tagged — the same
 * files, not a second build of them. Removing either tag by name leaves the other one working.
 */
export async function ensurePythonImageAs(tag: string): Promise<string> {
  const base = await ensurePythonImage()
  await run('docker', ['tag', base, tag])
  return tag
}
