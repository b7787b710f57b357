import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { InputError } from '../../src/util/errors.js'
import { mountArgs, parseMountSpec } from '../../src/config/mount-spec.js'
import { checkMounts, runIoCheck } from '../../src/preflight/io-check.js'
import { evaluateMounts, type MountReport } from '../../src/preflight/mount-rules.js'
import {
  classifyMount,
  coveringMount,
  devOf,
  isReadOnly,
  parseMountinfo
} from '../../src/preflight/mountinfo.js'
import { ioCheckCommand } from '../../src/commands/io-check.js'
import { execCapture } from '../../src/util/exec.js'
import { useSettingNames } from '../../src/util/setting-name.js'
import { ensurePythonImage } from '../helpers/docker-image.js'

const FIX = path.join(import.meta.dirname, '../__fixtures__')
const read = (f: string): string => readFileSync(path.join(FIX, f), 'utf8')

describe('mount specs', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gpu-overhead-spec-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('parses bind mounts, read-only binds and bare container paths', () => {
    expect(parseMountSpec(`${dir}:/data:ro`, 'data')).toEqual({
      kind: 'bind',
      spec: `${dir}:/data:ro`,
      host: dir,
      container: '/data',
      readOnly: true
    })
    expect(parseMountSpec(`${dir}:/ckpt/`, 'ckpt')).toMatchObject({
      kind: 'bind',
      container: '/ckpt',
      readOnly: false
    })
    expect(parseMountSpec(`${dir}:/ckpt:rw`, 'ckpt')).toMatchObject({ readOnly: false })
    expect(parseMountSpec('/workspace/data', 'data')).toEqual({
      kind: 'image',
      spec: '/workspace/data',
      container: '/workspace/data',
      readOnly: false
    })
    expect(parseMountSpec(`${path.basename(dir)}:/d`, 'data', { cwd: path.dirname(dir) })).toMatchObject({
      host: dir
    })
  })

  it.each([
    ['relative container path', 'data'],
    ['/host:/data:rox', 'x'],
    ['/a:/b:ro:extra', 'x'],
    ['/', 'x'],
    ['/data,readonly=false', 'x'],
    ['/da\nta', 'x'],
    ['/nonexistent-host-dir-xyz:/data', 'x']
  ])('rejects %j', spec => {
    expect(() => parseMountSpec(spec, 'data')).toThrow(InputError)
  })

  it('turns binds into --mount arguments (no shell, no -v ambiguity)', () => {
    expect(
      mountArgs([parseMountSpec(`${dir}:/data:ro`, 'data'), parseMountSpec('/in-image', 'ckpt')])
    ).toEqual(['--mount', `type=bind,source=${dir},target=/data,readonly=true`])
  })
})

describe('mountinfo (recorded inside real containers)', () => {
  it('GPU host: overlay root, read-only bind, tmpfs', () => {
    const m = parseMountinfo(read('gpu-host/container-mountinfo.txt'))
    const root = coveringMount(m, '/workspace/x')!
    expect(root).toMatchObject({ mount_point: '/', fs_type: 'overlay', root: '/' })
    expect(classifyMount(root)).toBe('overlay')
    const data = coveringMount(m, '/data/train/0001.bin')!
    expect(data).toMatchObject({ mount_point: '/data', root: '/tmp', fs_type: 'ext4', source: '/dev/vda' })
    expect(classifyMount(data)).toBe('bind')
    expect(isReadOnly(data)).toBe(true)
    const scratch = coveringMount(m, '/scratch')!
    expect(classifyMount(scratch)).toBe('tmpfs')
    expect(isReadOnly(scratch)).toBe(false)
    expect(coveringMount(m, '/datax')!.mount_point).toBe('/') // prefix on path components only
    expect(classifyMount(coveringMount(m, '/proc/self')!)).toBe('other')
  })

  it('local engine: read-only and writable binds of one directory, tmpfs, named volume', () => {
    const m = parseMountinfo(read('docker/container-mountinfo-local.txt'))
    const kinds = (p: string): [string, string, boolean] => {
      const e = coveringMount(m, p)!
      return [classifyMount(e), e.fs_type, isReadOnly(e)]
    }
    expect(kinds('/data')).toEqual(['bind', 'ext4', true])
    expect(kinds('/ckpt/step-1.pt')).toEqual(['bind', 'ext4', false])
    expect(kinds('/scratch')).toEqual(['tmpfs', 'tmpfs', false])
    expect(kinds('/vol/a')).toEqual(['volume', 'ext4', false])
    expect(kinds('/opt/ckpt')).toEqual(['overlay', 'overlay', false])
    expect(kinds('/sys/fs/cgroup/cpu')).toEqual(['other', 'cgroup', true])
  })

  it('a host folder on a tmpfs (Debian 13 /tmp, /dev/shm) is a bind by its source; --tmpfs is a tmpfs', () => {
    // Recorded with binds of /dev/shm/gpu-overhead-io (read-only and writable), of /dev/shm itself, and --tmpfs.
    const m = parseMountinfo(read('docker/container-mountinfo-shm-host.txt'))
    const shmDev = parseMountinfo(read('docker/host-mountinfo-shm.txt')).at(-1)!.dev
    const kind = (p: string, hostDev?: string) => classifyMount(coveringMount(m, p)!, hostDev)
    expect(coveringMount(m, '/ckpt')).toMatchObject({
      fs_type: 'tmpfs',
      root: '/gpu-overhead-io',
      dev: shmDev
    })
    // A folder of the host's tmpfs: its root is the folder's path there, whatever device is known.
    expect([kind('/data/x'), kind('/ckpt'), kind('/ckpt', shmDev)]).toEqual(['bind', 'bind', 'bind'])
    // The host tmpfs's own root bound in: root '/', told from a container tmpfs only by the host's device.
    expect(kind('/shm-root', shmDev)).toBe('bind')
    expect(kind('/shm-root')).toBe('tmpfs')
    // The runtime's tmpfs is new: its own device, so no host path makes it a bind.
    expect([kind('/scratch'), kind('/scratch', shmDev)]).toEqual(['tmpfs', 'tmpfs'])
    expect(isReadOnly(coveringMount(m, '/data')!)).toBe(true)
  })

  it('devOf gives the device of a host path as mountinfo writes it', () => {
    const host = parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'))
    for (const p of ['/', '/proc', '/dev/shm']) expect(devOf(p)).toBe(coveringMount(host, p)!.dev)
    expect(devOf('/no/such/path/gpu-overhead')).toBeNull()
  })

  it('a folder bound from a host whose own file system is OverlayFS is a bind, not the container layer', () => {
    // As proc(5) writes it where the tests (or a runner) live in a container: the bind's root is its host path.
    const m = parseMountinfo(
      [
        '54 39 0:29 / / rw,relatime - overlay overlay rw,lowerdir=/l1,upperdir=/u1,workdir=/w1',
        '60 54 0:40 /tmp/gpu-overhead-x/data /data ro,relatime - overlay overlay rw,lowerdir=/l0,upperdir=/u0,workdir=/w0',
        '61 54 0:40 /tmp/gpu-overhead-x/ckpt /ckpt rw,relatime - overlay overlay rw,lowerdir=/l0,upperdir=/u0,workdir=/w0',
        '62 54 0:41 / /scratch rw,relatime - fuse-overlayfs fuse-overlayfs rw'
      ].join('\n')
    )
    const kind = (p: string) => classifyMount(coveringMount(m, p)!)
    expect([kind('/data/a'), kind('/ckpt'), kind('/workspace'), kind('/scratch')]).toEqual([
      'bind',
      'bind',
      'overlay',
      'overlay'
    ])
  })

  it('decodes octal escapes and skips malformed lines', () => {
    const m = parseMountinfo('garbage\n90 72 254:0 /my\\040dir /mnt/with\\040space rw - ext4 /dev/vda rw\n')
    expect(m).toHaveLength(1)
    expect(m[0]).toMatchObject({ root: '/my dir', mount_point: '/mnt/with space' })
  })
})

describe('I/O rules', () => {
  const m = (over: Partial<MountReport>): MountReport => ({
    role: 'data',
    spec: null,
    container_path: '/data',
    exists: true,
    kind: 'bind',
    fs_type: 'ext4',
    read_only: true,
    requested_read_only: true,
    mount_point: '/data',
    source_root: '/srv/data',
    write_mb_s: null,
    read_mb_s: null,
    probe_error: null,
    ...over
  })
  const status = (over: Partial<MountReport>): string => evaluateMounts([m(over)], null, 64)[0]!.status

  it.each<[string, Partial<MountReport>, string]>([
    ['read-only bind dataset', {}, 'pass'],
    [
      'dataset on overlay',
      { kind: 'overlay', fs_type: 'overlay', read_only: false, requested_read_only: null },
      'fail'
    ],
    ['dataset writable although :ro was asked', { read_only: false }, 'fail'],
    ['writable dataset bind (no :ro asked)', { read_only: false, requested_read_only: false }, 'warn'],
    ['dataset in a volume, read-only', { kind: 'volume' }, 'pass'],
    ['checkpoint bind, writable', { role: 'ckpt', read_only: false, requested_read_only: false }, 'pass'],
    [
      'checkpoint on overlay',
      { role: 'ckpt', kind: 'overlay', fs_type: 'overlay', read_only: false },
      'fail'
    ],
    ['checkpoint read-only', { role: 'ckpt', read_only: true }, 'fail'],
    ['checkpoint on tmpfs', { role: 'ckpt', kind: 'tmpfs', fs_type: 'tmpfs', read_only: false }, 'warn'],
    [
      'checkpoint not writable by the container user',
      { role: 'ckpt', read_only: false, probe_error: 'PermissionError: Permission denied' },
      'warn'
    ]
  ])('%s → %s', (_what, over, want) => {
    expect(status(over)).toBe(want)
  })

  it('names the copy-up cost and the fix', () => {
    const [r] = evaluateMounts(
      [m({ role: 'ckpt', container_path: '/ckpt', kind: 'overlay', fs_type: 'overlay', read_only: false })],
      { file: '/usr/lib/x.so', size_mib: 30, ms: 40.5, baseline_ms: 0.3, error: null },
      64
    )
    expect(r!.message).toContain('OverlayFS')
    expect(r!.message).toContain('30 MiB image file took 40.5 ms')
    expect(r!.fix).toBe('bind-mount a host directory for checkpoints: --ckpt /host/checkpoints:/ckpt')
  })

  it("during a check, a fix names the check's setting as the user's entry point spells it, not io-check's flags", () => {
    const judged = (): Array<string | null> =>
      evaluateMounts(
        [
          m({
            role: 'ckpt',
            container_path: '/checkpoints',
            kind: 'overlay',
            fs_type: 'overlay',
            read_only: false
          }),
          m({
            role: 'data',
            container_path: '/data',
            kind: 'bind',
            fs_type: 'ext4',
            read_only: false,
            requested_read_only: false
          })
        ],
        null,
        64,
        true
      ).map(r => r.fix)
    try {
      useSettingNames('action')
      const action = judged()
      expect(action[0]).toBe(
        'bind-mount a host directory for checkpoints: checkpoint-path: /host/checkpoints (bound at /checkpoints)'
      )
      expect(action[1]).toContain('data-path: /host/dataset')
      useSettingNames('cli')
      const cli = judged()
      expect(cli[0]).toContain('--checkpoint-path /host/checkpoints')
      expect(cli[1]).toContain('--data-path /host/dataset')
      for (const fix of [...action, ...cli]) expect(fix).not.toMatch(/--ckpt|--data /)
    } finally {
      useSettingNames('action')
    }
  })
})

// Against the real engine: bind, read-only bind, tmpfs, volume, and a path that is not mounted.
describe('io-check against the local Docker engine', () => {
  let image: string
  let host: string
  const volume = `gpu-overhead-test-io-${process.pid}`
  beforeAll(async () => {
    image = await ensurePythonImage()
    host = mkdtempSync(path.join(tmpdir(), 'gpu-overhead-io-'))
    writeFileSync(path.join(host, 'sample.bin'), Buffer.alloc(1024))
    const v = await execCapture('docker', ['volume', 'create', volume])
    if (v.exitCode !== 0) throw new Error(v.stderr)
  })
  afterAll(async () => {
    rmSync(host, { recursive: true, force: true })
    await execCapture('docker', ['volume', 'rm', '-f', volume])
  })

  it('read-only bind dataset + writable bind checkpoints → pass, with speeds', async () => {
    const { text, exitCode } = await ioCheckCommand({
      image,
      data: `${host}:/data:ro`,
      ckpt: `${host}:/ckpt`,
      format: 'json',
      runtime: 'docker',
      probeMiB: 8
    })
    expect(exitCode).toBe(0)
    const report = JSON.parse(text)
    expect(report.verdict).toBe('pass')
    const [data, ckpt, layer] = report.mounts
    expect(data).toMatchObject({
      container_path: '/data',
      kind: 'bind',
      read_only: true,
      requested_read_only: true,
      write_mb_s: null
    })
    expect(ckpt).toMatchObject({ container_path: '/ckpt', kind: 'bind', read_only: false })
    expect(ckpt.write_mb_s).toBeGreaterThan(0)
    expect(ckpt.read_mb_s).toBeGreaterThan(0)
    expect(layer).toMatchObject({ role: 'writable-layer', kind: 'overlay', fs_type: 'overlay' })
    expect(layer.write_mb_s).toBeGreaterThan(0)
    expect(report.copy_up.ms).toBeGreaterThan(0)
    expect(report.copy_up.size_mib).toBeGreaterThanOrEqual(4)
    // The probe cleans up after itself on the host.
    expect(readdirSync(host)).toEqual(['sample.bin'])
  })

  it('an unmounted dataset path (overlay) and tmpfs checkpoints → fail, exit 1', async () => {
    const { text, exitCode } = await ioCheckCommand({
      image,
      data: '/data',
      ckpt: '/scratch',
      format: 'text',
      runtime: 'docker',
      extraDockerArgs: ['--tmpfs', '/scratch'],
      probeMiB: 8
    })
    expect(exitCode).toBe(1)
    expect(text).toMatch(/^io-check local\/gpu-overhead-test:py: FAIL/)
    expect(text).toMatch(/FAIL {2}mounts:data: dataset path \/data lands on the container's OverlayFS layer/)
    expect(text).toMatch(/WARN {2}mounts:ckpt: checkpoint path \/scratch is on tmpfs/)
    expect(text).toMatch(/copy-up: 1-byte write into \S+ \([\d.]+ MiB\) took [\d.]+ ms/)
  })

  it('checkpoints in a named volume, writable dataset bind → warn only', async () => {
    // io-check's own rules: its fixes name its own flags (`--data HOST:/data:ro`); a check names data-path.
    const { results } = await runIoCheck({
      image,
      runtime: 'docker',
      data: parseMountSpec(`${host}:/data`, 'data'),
      ckpt: parseMountSpec('/vol', 'ckpt'),
      extraDockerArgs: ['-v', `${volume}:/vol`],
      probeMiB: 4
    })
    const byName = Object.fromEntries(results.map(r => [r.name, r]))
    expect(byName['mounts:data']!.status).toBe('warn')
    expect(byName['mounts:data']!.fix).toContain(':ro')
    expect(byName['mounts:ckpt']).toMatchObject({ status: 'pass', details: { kind: 'volume' } })
    expect(byName['mounts:writable-layer']!.status).toBe('pass')
  })

  // Debian 13 mounts /tmp as a tmpfs: a host folder there is a bind like any other (issue 55).
  const tmpfs = hostTmpfs()
  ;(tmpfs.ok ? it : it.skip)(
    `a host folder on a tmpfs (${tmpfs.why}): a bind, the :ro advice for a writable dataset, no tmpfs warning`,
    async () => {
      const { root, cleanup } = await tmpfs.make()
      try {
        const data = mkdtempSync(path.join(root, 'gpu-overhead-io-'))
        writeFileSync(path.join(data, 'sample.bin'), Buffer.alloc(1024))
        // The checkpoint folder: the tmpfs's own root where the test mounted one (root '/' in mountinfo: told
        // from a container tmpfs by the host's device), else a folder beside the dataset.
        const ckpt = tmpfs.mounted ? root : mkdtempSync(path.join(root, 'gpu-overhead-ckpt-'))
        const { text, exitCode } = await ioCheckCommand({
          image,
          data: `${data}:/data`,
          ckpt: `${ckpt}:/ckpt`,
          format: 'text',
          runtime: 'docker',
          probeMiB: 4
        })
        expect(text).toMatch(/WARN {2}mounts:data: dataset mount \/data \(bind, tmpfs\) is writable/)
        expect(text).toContain('fix: mount the dataset read-only: --data /host/dataset:/data:ro')
        expect(text).toMatch(/PASS {2}mounts:ckpt: checkpoint path \/ckpt: bind \(tmpfs\)/)
        expect(text).not.toMatch(/gone when the container exits|--ckpt \/host\/checkpoints/)
        expect(exitCode).toBe(0)
        const ro = await checkMounts({
          image,
          runtime: 'docker',
          data: parseMountSpec(`${data}:/data:ro`, 'data'),
          ckpt: parseMountSpec(`${ckpt}:/ckpt`, 'ckpt'),
          probeMiB: 4
        })
        expect(ro.map(r => [r.name, r.status, r.details?.kind])).toEqual([
          ['mounts:data', 'pass', 'bind'],
          ['mounts:ckpt', 'pass', 'bind'],
          ['mounts:writable-layer', 'pass', 'overlay']
        ])
        expect(readdirSync(data)).toEqual(['sample.bin'])
      } finally {
        await cleanup()
      }
    }
  )

  it('bad input is rejected before anything runs', async () => {
    await expect(ioCheckCommand({ image, format: 'text', runtime: 'docker' })).rejects.toThrow(InputError)
    await expect(
      ioCheckCommand({ image: 'bad image', data: '/d', format: 'text', runtime: 'docker' })
    ).rejects.toThrow(InputError)
    await expect(
      ioCheckCommand({ image, data: 'rel/path', format: 'text', runtime: 'docker' })
    ).rejects.toThrow(/input 'data'/)
  })

  it('an image without python3 is an environment error that says so', async () => {
    const res = await execCapture('bash', [path.join(FIX, 'images/build-cuda-style-images.sh')])
    expect(res.exitCode).toBe(0)
    await expect(
      ioCheckCommand({
        image: 'local/ngc-style-pytorch:25.01-py3',
        data: '/d',
        format: 'text',
        runtime: 'docker'
      })
    ).rejects.toThrow(/needs python3/)
  })
})

/**
 * A host folder on a tmpfs for the io-check test: the temporary folder where it is one (Debian 13's /tmp); else,
 * as root, a tmpfs mounted on a new temporary folder for the test and unmounted after it (the host is left as it
 * was: /dev/shm, the tmpfs every host has, is a system folder the mount policy refuses). Neither: skipped with a
 * line on stderr, an error on CI (.ci/run runs as root).
 */
function hostTmpfs(): {
  ok: boolean
  why: string
  mounted: boolean
  make: () => Promise<{ root: string; cleanup: () => Promise<void> }>
} {
  const tmp = tmpdir()
  const cover = coveringMount(parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')), tmp)
  if (cover?.fs_type === 'tmpfs')
    return {
      ok: true,
      why: `${tmp} is one`,
      mounted: false,
      make: () => Promise.resolve({ root: tmp, cleanup: () => Promise.resolve() })
    }
  if (process.getuid?.() === 0)
    return {
      ok: true,
      why: 'one mounted for the test',
      mounted: true,
      make: async () => {
        const root = mkdtempSync(path.join(tmp, 'gpu-overhead-tmpfs-'))
        const m = await execCapture('mount', [
          '-t',
          'tmpfs',
          '-o',
          'size=64m,mode=0755',
          'gpu-overhead-test',
          root
        ])
        if (m.exitCode !== 0) throw new Error(`mount -t tmpfs ${root}: ${m.stderr}`)
        return {
          root,
          cleanup: async () => {
            const u = await execCapture('umount', [root])
            if (u.exitCode !== 0) throw new Error(`umount ${root}: ${u.stderr}`)
            rmSync(root, { recursive: true, force: true })
          }
        }
      }
    }
  if (process.env.CI === 'true') throw new Error(`${tmp} is not a tmpfs and the tests do not run as root`)
  process.stderr.write(
    `mounts.test.ts: skipped the tmpfs host folder test (${tmp} is not a tmpfs; not root)\n`
  )
  return { ok: false, why: 'none here', mounted: false, make: () => Promise.reject(new Error('no tmpfs')) }
}
