/**
 * io-check's SPECs are parsed once, in config, and their host paths judged by the mount policy on the resolved
 * path (docs/security.md) before anything runs: the io-check command refuses them with a named input error.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { allowedMountSpec, bindSpecOf } from '../../src/config/index.js'
import { ioCheckCommand } from '../../src/commands/io-check.js'
import { InputError } from '../../src/util/errors.js'

const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mount-spec-')))
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

describe('allowedMountSpec', () => {
  it.each([
    ['/var/run:/data:ro', /(the|inside the) system folder \/(var\/)?run\b/],
    ['/:/data', /root of the host file system/],
    ['/etc:/ckpt', /system folder \/etc/]
  ])('refuses %s', (spec, why) => {
    expect(() => allowedMountSpec(spec, 'data', 'data')).toThrow(InputError)
    expect(() => allowedMountSpec(spec, 'data', 'data')).toThrow(why)
  })

  it('judges a link by its target', () => {
    const link = path.join(ws, 'root-link')
    fs.symlinkSync('/', link)
    expect(() => allowedMountSpec(`${link}:/data`, 'data', 'data')).toThrow(/resolved: \//)
  })

  it('keeps an allowed bind typed, a regular file included, and passes paths inside the image as they are', () => {
    const file = path.join(ws, 'shard.bin')
    fs.writeFileSync(file, 'x')
    expect(allowedMountSpec(`${file}:/data/shard.bin:ro`, 'data', 'data')).toEqual({
      kind: 'bind',
      spec: `${file}:/data/shard.bin:ro`,
      host: file,
      container: '/data/shard.bin',
      readOnly: true
    })
    expect(allowedMountSpec('/var/run', 'ckpt', 'checkpoint')).toMatchObject({ kind: 'image' })
  })

  it('a config mount becomes an io-check bind with the same fields', () => {
    const m = { host: ws, container: '/checkpoints', readOnly: false }
    expect(bindSpecOf(m)).toEqual({ kind: 'bind', spec: `${ws}:/checkpoints`, ...m })
  })
})

describe('io-check command', () => {
  it.each([
    ['data', '/var/run:/data:ro'],
    ['ckpt', '/etc:/ckpt']
  ] as const)('refuses --%s %s before starting a container', async (flag, spec) => {
    await expect(
      ioCheckCommand({ image: 'local/never-started:x', [flag]: spec, format: 'text', runtime: 'docker' })
    ).rejects.toThrow(new RegExp(`input '${flag}'`))
  })
})

describe('io-check without --data or --ckpt', () => {
  it('says the input is missing, not "got undefined"', async () => {
    const err = await ioCheckCommand({ image: 'x', format: 'text', runtime: 'docker' }).catch(
      (e: unknown) => e
    )
    expect(err).toBeInstanceOf(InputError)
    expect((err as Error).message).toBe(
      "input 'data': none given; allowed: at least one of --data SPEC or --ckpt SPEC"
    )
  })
})
