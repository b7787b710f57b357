import { InputError } from '../../src/util/errors.js'
import { gate } from '../../src/preflight/driver-gate.js'

const base = { strict: false, forwardCompat: false, datacenterGpu: true as boolean | null }

describe('driver gate', () => {
  it('passes the GPU host (driver 580.159.04) for CUDA 13.0.2 and 12.4.1', () => {
    expect(gate({ ...base, driver: '580.159.04', cuda: '13.0.2' }).status).toBe('pass')
    expect(gate({ ...base, driver: '580.159.04', cuda: '12.4.1' }).status).toBe('pass')
  })

  it('fails below the floor and names driver, minimum and both fixes', () => {
    const r = gate({ ...base, driver: '575.57.08', cuda: '13.0' })
    expect(r.status).toBe('fail')
    expect(r.message).toContain('575.57.08')
    expect(r.message).toContain('580')
    expect(r.message).toContain('CUDA_ERROR_SYSTEM_DRIVER_MISMATCH')
    expect(r.fix).toContain('upgrade the host driver to branch R580')
    expect(r.fix).toContain('pin an older image tag whose CUDA ≤ 12.9')
    expect(r.details).toMatchObject({
      floor_driver: '580',
      release_driver: '580.65.06',
      reason: 'below-floor'
    })
  })

  it('warns between floor and release driver (limited features, PTX JIT), fails with strict', () => {
    const r = gate({ ...base, driver: '535.54.03', cuda: '12.4.1' })
    expect(r.status).toBe('warn')
    expect(r.message).toMatch(/minor-version compatibility/)
    expect(r.message).toMatch(/PTX/)
    expect(r.fix).toContain('R550')
    expect(r.fix).toContain('CUDA ≤ 12.2')
    expect(gate({ ...base, strict: true, driver: '535.54.03', cuda: '12.4.1' }).status).toBe('fail')
  })

  it('turns a below-floor fail into a warning with forward compatibility on a data-center GPU', () => {
    const r = gate({ ...base, forwardCompat: true, datacenterGpu: true, driver: '470.82.01', cuda: '12.4.1' })
    expect(r.status).toBe('warn')
    expect(r.details.reason).toBe('forward-compat')
    expect(r.message).toMatch(/forward-compatibility/)
    expect(r.fix).toContain('CUDA is 11.x')
  })

  it('keeps the fail when forward compatibility cannot apply, and says why', () => {
    const consumer = gate({
      ...base,
      forwardCompat: true,
      datacenterGpu: false,
      driver: '470.82.01',
      cuda: '12.4.1'
    })
    expect(consumer.status).toBe('fail')
    expect(consumer.message).toMatch(/data-center GPUs only/)
    const unknown = gate({
      ...base,
      forwardCompat: true,
      datacenterGpu: null,
      driver: '470.82.01',
      cuda: '12.4.1'
    })
    expect(unknown.status).toBe('fail')
    expect(unknown.message).toMatch(/could not be confirmed/)
    expect(gate({ ...base, forwardCompat: false, driver: '470.82.01', cuda: '12.4.1' }).message).not.toMatch(
      /forward/
    )
  })

  it("prefers the image's own release driver (NGC CUDA_DRIVER_VERSION) over the table", () => {
    // NGC 23.10: CUDA 12.2.2.009 released with 535.104.05; the table's 12.2 GA row says 535.54.03.
    const r = gate({ ...base, driver: '535.86.10', cuda: '12.2.2.009', releaseDriver: '535.104.05' })
    expect(r.status).toBe('warn')
    expect(r.details).toMatchObject({ release_driver: '535.104.05', release_driver_source: 'image' })
    expect(gate({ ...base, driver: '535.86.10', cuda: '12.2.2.009' }).status).toBe('pass')
  })

  it('handles CUDA newer than the table: floor still applies, nvidia-smi CUDA settles it', () => {
    expect(gate({ ...base, driver: '575.57.08', cuda: '13.4' }).status).toBe('fail')
    const unknownRelease = gate({ ...base, driver: '580.159.04', cuda: '13.4' })
    expect(unknownRelease.status).toBe('warn')
    expect(unknownRelease.message).toMatch(/no release driver for CUDA 13.4/)
    expect(gate({ ...base, driver: '600.10', cuda: '13.4', driverCuda: '13.5' }).status).toBe('pass')
  })

  it('warns (strict: fails) for a CUDA major without data', () => {
    expect(gate({ ...base, driver: '580.159.04', cuda: '10.2' }).status).toBe('warn')
    expect(gate({ ...base, strict: true, driver: '580.159.04', cuda: '14.0' }).status).toBe('fail')
  })

  it.each([
    ['driver', { driver: '580.65.06; rm -rf /', cuda: '12.4' }],
    ['driver', { driver: 'latest', cuda: '12.4' }],
    ['cuda', { driver: '580.65.06', cuda: '12' }],
    ['cuda', { driver: '580.65.06', cuda: 'cuda>=12.4' }]
  ])('rejects bad %s input with InputError', (input, v) => {
    expect(() => gate({ ...base, ...v })).toThrow(InputError)
    try {
      gate({ ...base, ...v })
    } catch (e) {
      expect((e as InputError).input).toBe(input)
      expect((e as InputError).exitCode).toBe(2)
    }
  })
})
