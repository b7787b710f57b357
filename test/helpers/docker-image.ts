/**
 * A small local test image with python3 + NumPy, built with `docker import` from the host's own
 * files (nothing can be pulled here): Debian's /usr/bin/python3.11, its standard library, Debian's
 * NumPy (/usr/lib/python3/dist-packages/numpy) with OpenBLAS, dash as /bin/sh, a few coreutils, and
 * every shared library `ldd` lists for them. Idempotent and cached by tag; concurrent callers
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
export type BlasChoice = 'host' | 'openblas'
/** Debian's OpenBLAS (package libopenblas0-pthread), taken outside the alternatives system. */
const OPENBLAS_DIR = '/usr/lib/x86_64-linux-gnu/openblas-pthread'
const OPENBLAS_FILES = ['libblas.so.3', 'liblapack.so.3', 'libopenblas.so.0'] as const
/** Bump when the image content changes; an image with another marker is rebuilt. */
const MARKER_ENV = 'GPU_OVERHEAD_TEST_IMAGE'
const IMAGE_MARKER = 'py-v1'
const markerOf = (blas: BlasChoice): string => (blas === 'host' ? IMAGE_MARKER : `${IMAGE_MARKER}-${blas}`)

const PYTHON = '/usr/bin/python3.11'
const STDLIB = '/usr/lib/python3.11'
const NUMPY = '/usr/lib/python3/dist-packages/numpy'
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
async function sharedLibraries(files: readonly string[]): Promise<Set<string>> {
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
function imagePath(hostPath: string): string {
  const p = hostPath.replace(/^\/+/, '')
  if (/^(lib|lib64|bin|sbin)\//.test(p)) return `usr/${p}`
  return p
}

async function buildPythonImage(tag: string, runtime: string, blas: BlasChoice): Promise<void> {
  const openblas = blas === 'openblas' ? OPENBLAS_FILES.map(f => path.join(OPENBLAS_DIR, f)) : []
  for (const p of [PYTHON, STDLIB, NUMPY, '/usr/bin/dash', ...openblas]) {
    if (!existsSync(p))
      throw new Error(
        `cannot build ${tag}: ${p} is missing on this host (apt-get install python3 python3-numpy dash libopenblas0-pthread)`
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
    symlinkSync('python3.11', path.join(root, 'usr/bin/python3'))
    symlinkSync('python3.11', path.join(root, 'usr/bin/python'))
    symlinkSync('dash', path.join(root, 'usr/bin/sh'))

    const elfs = [...binaries, ...openblas]
    walkSharedObjects(NUMPY, elfs)
    walkSharedObjects(path.join(STDLIB, 'lib-dynload'), elfs)
    for (const lib of await sharedLibraries(elfs)) {
      const dest = path.join(root, imagePath(lib))
      mkdirSync(path.dirname(dest), { recursive: true })
      copyFileSync(lib, dest) // follows symlinks (Debian's alternatives for libblas/liblapack)
    }
    // OpenBLAS takes the names NumPy links against, whatever the host's alternatives say.
    for (const file of openblas)
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
      '--exclude=usr/lib/python3.11/test',
      '--exclude=usr/lib/python3.11/idlelib',
      '--exclude=usr/lib/python3.11/tkinter',
      '--exclude=usr/lib/python3.11/turtledemo',
      '--exclude=usr/lib/python3.11/ensurepip',
      '--exclude=usr/lib/python3.11/lib2to3/tests',
      '--exclude=usr/lib/python3/dist-packages/numpy/*/tests',
      '-C',
      root,
      '.',
      '-C',
      '/',
      STDLIB.slice(1),
      NUMPY.slice(1)
    ])
    await run(runtime, [
      'import',
      '-c',
      `ENV ${MARKER_ENV}=${markerOf(blas)}`,
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
  const smoke = await execCapture(runtime, [
    'run',
    '--rm',
    '--network',
    'none',
    tag,
    'python3',
    '-c',
    'import numpy, tempfile, json; print(numpy.__version__)'
  ])
  if (smoke.exitCode !== 0)
    throw new Error(`built ${tag}, but python3/numpy do not run in it: ${smoke.stderr.trim()}`)
}

async function sleep(ms: number): Promise<void> {
  await new Promise(resolve => setTimeout(resolve, ms))
}

/**
 * Build the python3 + NumPy test image once (cached by tag) and return its tag.
 * Safe to call from several jest workers at once.
 */
export async function ensurePythonImage(
  tag: string = PYTHON_IMAGE_TAG,
  runtime = 'docker',
  blas: BlasChoice = 'host'
): Promise<string> {
  const MARKER = markerOf(blas)
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
    if ((await imageMarker(tag, runtime)) !== MARKER) await buildPythonImage(tag, runtime, blas)
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
  return tag
}
