import {
  reportedCudaForDriver,
  compareVersions,
  majorMinor,
  maxCudaForDriver,
  MINOR_VERSION_FLOORS,
  minorVersionFloor,
  parseVersion,
  TOOLKIT_RELEASE_DRIVERS,
  toolkitReleaseDriver
} from '../../src/preflight/cuda-compat.js'
import { gate } from '../../src/preflight/driver-gate.js'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parseCudaVersion } from '../../src/preflight/gpu.js'

/** The next lower version at the last non-zero part: 525.60.13 → 525.60.12, 580 → 579. */
function justBelow(v: string): string {
  const p = parseVersion(v)!
  for (let i = p.length - 1; i >= 0; i--) {
    if (p[i]! > 0) {
      p[i] = p[i]! - 1
      for (let j = i + 1; j < p.length; j++) p[j] = 99
      return p.join('.')
    }
  }
  throw new Error(`nothing below ${v}`)
}
function justAbove(v: string): string {
  const p = parseVersion(v)!
  p[p.length - 1] = p[p.length - 1]! + 1
  return p.join('.')
}

describe('compareVersions', () => {
  it.each([
    ['580', '580.65.06', -1],
    ['580.65.06', '580.65.6', 0],
    ['12.4', '12.4.0', 0],
    ['12.4.1', '12.4', 1],
    ['12.4.1.004', '12.4.1', 1],
    ['12.4.1.003', '12.4.1.004', -1],
    ['12.10', '12.9', 1],
    ['450.80.02', '450.80.10', -1],
    ['525.60.13', '525.60.13', 0],
    ['13.0', '12.9.1', 1]
  ] as const)('%s vs %s → %d', (a, b, want) => {
    expect(compareVersions(a, b)).toBe(want)
    expect(compareVersions(b, a)).toBe(-want === 0 ? 0 : -want)
  })

  it.each(['', '12.', '.4', '12.4.1.2.3', 'v12.4', '12.4-1', '12.x', ' '])('rejects %j', v => {
    expect(parseVersion(v)).toBeNull()
    expect(() => compareVersions(v, '1')).toThrow(/not a dotted numeric version/)
  })

  it('majorMinor drops patch and build parts (NGC four-part versions)', () => {
    expect(majorMinor('12.4.1.004')).toBe('12.4')
    expect(majorMinor('13')).toBe('13.0')
  })
})

describe('NVIDIA tables as data', () => {
  it('has the floors from the CUDA compatibility guide', () => {
    expect(MINOR_VERSION_FLOORS).toEqual([
      { cudaMajor: 11, minDriver: '450.80.02' },
      { cudaMajor: 12, minDriver: '525.60.13' },
      { cudaMajor: 13, minDriver: '580' }
    ])
  })

  it('every release driver is at or above the floor of its major', () => {
    for (const row of TOOLKIT_RELEASE_DRIVERS) {
      expect(compareVersions(row.driver, minorVersionFloor(row.cuda)!)).toBeGreaterThanOrEqual(0)
    }
  })

  it('looks up the release driver for updates and NGC build numbers', () => {
    expect(toolkitReleaseDriver('13.0')).toBe('580.65.06')
    expect(toolkitReleaseDriver('13.0.0')).toBe('580.65.06')
    expect(toolkitReleaseDriver('13.0.1')).toBe('580.82.07')
    expect(toolkitReleaseDriver('13.0.2')).toBe('580.95.05')
    expect(toolkitReleaseDriver('13.0.2.006')).toBe('580.95.05')
    expect(toolkitReleaseDriver('13.1.1')).toBe('590.48.01')
    expect(toolkitReleaseDriver('12.8.0.038')).toBe('570.26')
    expect(toolkitReleaseDriver('12.8.1')).toBe('570.124.06')
    // Update releases have their own rows (issue 31, item 6).
    expect(toolkitReleaseDriver('12.4.1')).toBe('550.54.15')
    expect(toolkitReleaseDriver('12.2.2.009')).toBe('535.104.05')
    expect(toolkitReleaseDriver('12.3.2')).toBe('545.23.08') // unlisted update: nearest lower row
    expect(toolkitReleaseDriver('11.8.0')).toBe('520.61.05')
    expect(toolkitReleaseDriver('11.7.1')).toBe('515.48.07')
    expect(toolkitReleaseDriver('11.4.3')).toBe('470.82.01')
    expect(toolkitReleaseDriver('11.0.3')).toBe('450.51.06')
    expect(toolkitReleaseDriver('11.0')).toBe('450.36.06') // before the GA row: the 11.0 RC
    expect(toolkitReleaseDriver('12.7')).toBeNull() // no such release
    expect(toolkitReleaseDriver('13.4')).toBeNull() // newer than the table
    expect(toolkitReleaseDriver('10.2')).toBeNull() // older than the table
  })

  it('has every Table 3 row from CUDA 11.0 to 13.2, each update after its GA', () => {
    const mm = new Set(TOOLKIT_RELEASE_DRIVERS.map(r => majorMinor(r.cuda)))
    expect([...mm].sort((a, b) => compareVersions(a, b))).toEqual(
      ['11.0', '11.1', '11.2', '11.3', '11.4', '11.5', '11.6', '11.7', '11.8']
        .concat(['12.0', '12.1', '12.2', '12.3', '12.4', '12.5', '12.6', '12.8', '12.9'])
        .concat(['13.0', '13.1', '13.2'])
    )
    const sorted = [...TOOLKIT_RELEASE_DRIVERS].sort((a, b) => compareVersions(a.cuda, b.cuda))
    sorted.forEach((r, i) => {
      if (i > 0) expect(compareVersions(r.driver, sorted[i - 1]!.driver)).toBeGreaterThanOrEqual(0)
      expect(r.release).toMatch(/^CUDA \d+\.\d+ (GA|RC|Update \d)$/)
    })
  })

  it('CUDA 11.0 was released below the 11.x floor: the guide lists 450.36.06 for it', () => {
    expect(minorVersionFloor('11.0.3')).toBe('450.36.06')
    expect(minorVersionFloor('11.0')).toBe('450.36.06')
    expect(minorVersionFloor('11.1.1')).toBe('450.80.02')
    const g = (driver: string, strict: boolean) =>
      gate({ driver, cuda: '11.0.3', strict, forwardCompat: false, datacenterGpu: true })
    expect(g('450.51.06', true).status).toBe('pass') // its release driver
    expect(g('450.36.06', false).status).toBe('warn') // at the 11.0 floor, below the release driver
    expect(g('450.36.05', false).status).toBe('fail')
  })

  it('says what a driver can run', () => {
    expect(maxCudaForDriver('580.159.04')).toEqual({ full: '13.0.2', minorCompat: 13 })
    expect(maxCudaForDriver('535.54.03')).toEqual({ full: '12.2.0', minorCompat: 12 })
    expect(maxCudaForDriver('470.82.01')).toEqual({ full: '11.4.4', minorCompat: 11 })
    expect(maxCudaForDriver('440.33')).toEqual({ full: null, minorCompat: null })
  })
})

// Every row of table 3, both sides of its release driver: at/above → pass, below → warn (strict: fail),
// unless below is also under the minor-version floor → fail.
describe.each(TOOLKIT_RELEASE_DRIVERS.map(r => [r.cuda, r.driver] as const))(
  'CUDA %s (release driver %s)',
  (cuda, release) => {
    const floor = minorVersionFloor(cuda)!
    const below = justBelow(release)
    const belowIsUnderFloor = compareVersions(below, floor) < 0

    it.each([release, justAbove(release)])('driver %s → pass', driver => {
      const r = gate({ driver, cuda, strict: true, forwardCompat: false, datacenterGpu: true })
      expect(r.status).toBe('pass')
      expect(r.fix).toBeNull()
      expect(r.details.release_driver).toBe(release)
    })

    it(`driver ${below} → ${belowIsUnderFloor ? 'fail (below floor)' : 'warn, strict fail'}`, () => {
      const loose = gate({ driver: below, cuda, strict: false, forwardCompat: false, datacenterGpu: true })
      const strict = gate({ driver: below, cuda, strict: true, forwardCompat: false, datacenterGpu: true })
      expect(loose.status).toBe(belowIsUnderFloor ? 'fail' : 'warn')
      expect(strict.status).toBe('fail')
      expect(loose.message).toContain(below)
      expect(loose.fix).toContain(`≥ ${release}`)
    })
  }
)

// Both sides of every minor-version floor, for every CUDA version of that major in the table.
describe.each(MINOR_VERSION_FLOORS.map(f => [f.cudaMajor, f.minDriver] as const))(
  'CUDA %d.x floor %s',
  (major, floor) => {
    // CUDA 11.0 has its own, lower floor (tested above).
    const rows = TOOLKIT_RELEASE_DRIVERS.filter(
      r => parseVersion(r.cuda)![0] === major && majorMinor(r.cuda) !== '11.0'
    )
    it.each(rows.map(r => [r.cuda, r.driver] as const))(
      'CUDA %s: below the floor fails, at the floor runs',
      (cuda, release) => {
        const below = gate({
          driver: justBelow(floor),
          cuda,
          strict: false,
          forwardCompat: false,
          datacenterGpu: true
        })
        expect(below.status).toBe('fail')
        expect(below.details.reason).toBe('below-floor')
        expect(below.message).toContain('CUDA_ERROR_SYSTEM_DRIVER_MISMATCH')
        expect(below.message).toContain(`below ${floor}`)
        const at = gate({ driver: floor, cuda, strict: false, forwardCompat: false, datacenterGpu: true })
        expect(at.status).toBe(compareVersions(floor, release) >= 0 ? 'pass' : 'warn')
      }
    )
  }
)

describe('reportedCudaForDriver: the CUDA version a driver reports, from its branch', () => {
  it('agrees with what the recorded H200 driver reports (nvidia-smi header)', () => {
    const text = readFileSync(
      path.join(import.meta.dirname, '../__fixtures__/nvidia-smi/nvidia-smi.txt'),
      'utf8'
    )
    const driver = /Driver Version:\s*(\S+)/.exec(text)![1]!
    expect(reportedCudaForDriver(driver)).toBe(parseCudaVersion(text))
  })

  it.each([
    ['550.54.14', '12.4'], // the 12.4 release driver
    ['560.35.03', '12.6'], // later in the 12.6 branch
    ['570.124.06', '12.8'], // 12.8 Update 1: still 12.8
    ['590.48.01', '13.1'],
    ['470.82.01', '11.4'] // R470 reports CUDA 11.4
  ])('%s → %s', (driver, cuda) => expect(reportedCudaForDriver(driver)).toBe(cuda))

  it.each([
    ['565.57.01', 'a branch the table does not list (R565)'],
    ['550.40.07', 'below its branch release driver'],
    ['595.45.04', 'the newest branch: a later toolkit may come with it'],
    ['440.33', 'older than the table'],
    ['not-a-version', 'not a version']
  ])('%s → unknown (%s)', driver => expect(reportedCudaForDriver(driver)).toBeNull())
})
