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
    expect(r.fix).toContain('CUDA ≤ 11.4')
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

  it("uses Table 3 first, the image's CUDA_DRIVER_VERSION only for a release the table lacks", () => {
    // NGC 23.10: CUDA 12.2.2.009 → Table 3's 12.2 Update 2 row, 535.104.05 (the image says the same).
    const ngc = gate({ ...base, driver: '535.86.10', cuda: '12.2.2.009', releaseDriver: '999.1' })
    expect(ngc.status).toBe('warn')
    expect(ngc.details).toMatchObject({ release_driver: '535.104.05', release_driver_source: 'table' })
    expect(gate({ ...base, driver: '535.104.05', cuda: '12.2.2.009' }).status).toBe('pass')
    const newer = gate({ ...base, driver: '620.10', cuda: '13.5.1', releaseDriver: '630.20' })
    expect(newer.details).toMatchObject({ release_driver: '630.20', release_driver_source: 'image' })
    expect(newer.status).toBe('warn')
    expect(newer.message).toContain("release driver 630.20 (the image's CUDA_DRIVER_VERSION)")
    expect(newer.message).toContain(
      'the driver table (as of 2026-11-27, newest CUDA 13.4) is older than CUDA 13.5'
    )
    const met = gate({ ...base, driver: '630.20', cuda: '13.5.1', releaseDriver: '630.20' })
    expect(met.status).toBe('pass')
    expect(met.message).toMatch(/older than CUDA 13\.5$/)
  })

  it("uses a branch-only row before the image's CUDA_DRIVER_VERSION", () => {
    const r = gate({ ...base, driver: '610.10', cuda: '13.3.1', releaseDriver: '610.43.02' })
    expect(r.status).toBe('pass')
    expect(r.details).toMatchObject({
      release_driver: null,
      release_branch: 'R610',
      release_driver_source: 'table'
    })
  })

  describe('forward compatibility: the compat libcuda in the image, used only when newer than the host driver', () => {
    // An H100 on R535 with a CUDA 13.0.1 image (compat libcuda 580.82.07) whose NVIDIA_REQUIRE_CUDA admits
    // brand=nvidia,driver>=535,driver<536 (issue 31, item 7).
    const h100r535 = {
      ...base,
      driver: '535.104.05',
      cuda: '13.0.1',
      forwardCompat: true,
      compatDriver: '580.82.07',
      datacenterGpu: true
    }
    it('passes on a branch the image admits', () => {
      const r = gate({ ...h100r535, compatBranches: [535] })
      expect(r.status).toBe('pass')
      expect(r.details).toMatchObject({
        reason: 'forward-compat',
        compat_driver: '580.82.07',
        compat_applies: true
      })
      expect(r.message).toMatch(/libcuda 580\.82\.07/)
    })
    it('warns on a branch the image does not list', () => {
      expect(gate({ ...h100r535, compatBranches: [470] }).status).toBe('warn')
    })
    it('fails when the compat libraries are not newer than the host driver (the toolkit leaves them out)', () => {
      const r = gate({ ...h100r535, compatDriver: '535.104.05', compatBranches: [535] })
      expect(r.status).toBe('fail')
      expect(r.details.compat_applies).toBe(false)
      expect(r.message).toMatch(/not newer than R535/)
    })
    it('fails on a GPU that is not a data-center GPU, or one not confirmed as such', () => {
      expect(gate({ ...h100r535, datacenterGpu: false, compatBranches: [535] }).status).toBe('fail')
      expect(gate({ ...h100r535, datacenterGpu: null, compatBranches: [535] }).status).toBe('fail')
    })
    it('lifts a below-release warning to pass: the newer libcuda brings its features', () => {
      const older = { ...base, driver: '535.54.03', cuda: '12.4.1', datacenterGpu: true }
      expect(gate({ ...older, forwardCompat: false }).status).toBe('warn')
      const r = gate({ ...older, forwardCompat: true, compatDriver: '550.54.15' })
      expect(r.status).toBe('pass')
      expect(r.details.reason).toBe('forward-compat')
    })
  })

  it('handles CUDA newer than the table: floor still applies, nvidia-smi CUDA settles it, and says the table is older', () => {
    const older = 'the driver table (as of 2026-11-27, newest CUDA 13.4) is older than CUDA 13.5'
    expect(gate({ ...base, driver: '575.57.08', cuda: '13.5' }).status).toBe('fail')
    const unknownRelease = gate({ ...base, driver: '615.10', cuda: '13.5' })
    expect(unknownRelease.status).toBe('warn')
    expect(unknownRelease.message).toContain(older)
    expect(unknownRelease.message.split('\n')).toHaveLength(1)
    expect(gate({ ...base, strict: true, driver: '615.10', cuda: '13.5' }).status).toBe('fail')
    // nvidia-smi says the driver covers it: a pass, not a silent one.
    const smi = gate({ ...base, driver: '620.10', cuda: '13.5', driverCuda: '13.5' })
    expect(smi.status).toBe('pass')
    expect(smi.message).toContain(older)
    // Forward compatibility lets it pass: still said.
    const compat = gate({
      ...base,
      driver: '615.10',
      cuda: '13.5',
      forwardCompat: true,
      compatDriver: '620.1'
    })
    expect(compat.status).toBe('pass')
    expect(compat.details.reason).toBe('forward-compat')
    expect(compat.message).toContain(older)
  })

  it('a gap inside the table (no 12.7 release) is not "newer than the table"', () => {
    const r = gate({ ...base, driver: '575.57.08', cuda: '12.7' })
    expect(r.status).toBe('warn')
    expect(r.message).toMatch(/the table \(newest 13\.4\) has no release driver for CUDA 12\.7/)
    expect(r.message).not.toContain('is older than')
  })

  it('warns (strict: fails) for a CUDA major without data, saying which side of the table it is', () => {
    const old = gate({ ...base, driver: '580.159.04', cuda: '9.2' })
    expect(old.status).toBe('warn')
    expect(old.message).toContain('the tables cover CUDA 10.0 to 13.4')
    const newer = gate({ ...base, strict: true, driver: '580.159.04', cuda: '14.0' })
    expect(newer.status).toBe('fail')
    expect(newer.message).toContain(
      'the driver table (as of 2026-11-27, newest CUDA 13.4) is older than CUDA 14.0'
    )
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
