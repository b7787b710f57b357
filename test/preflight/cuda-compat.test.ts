import {
  branchOnlyRow,
  reportedCudaForDriver,
  compareVersions,
  majorMinor,
  maxCudaForDriver,
  minorVersionFloor,
  newerThanTable,
  newestTabulatedCuda,
  parseVersion,
  toolkitReleaseDriver
} from '../../src/preflight/cuda-compat.js'
import {
  BRANCH_ONLY_ROWS,
  CUDA_10_MINIMUM_DRIVERS,
  DRIVER_TABLE,
  MINOR_VERSION_FLOORS,
  TOOLKIT_RELEASE_DRIVERS
} from '../../src/preflight/cuda-driver-table.js'
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
    expect(toolkitReleaseDriver('13.2.1')).toBe('595.58.03')
    expect(toolkitReleaseDriver('13.2.2')).toBe('595.71.05')
    expect(toolkitReleaseDriver('10.2')).toBe('440.33') // 10.x rows carry the build number: 10.2.89
    expect(toolkitReleaseDriver('10.1.243')).toBe('418.39') // "10.1.105 general release, and updates"
    expect(toolkitReleaseDriver('12.7')).toBeNull() // no such release
    expect(toolkitReleaseDriver('13.4')).toBeNull() // a branch-only entry: no driver version
    expect(toolkitReleaseDriver('13.5')).toBeNull() // newer than the table
    expect(toolkitReleaseDriver('9.2')).toBeNull() // older than the table
  })

  it('has every Table 3 row from CUDA 10.0 to 13.2, each update after its GA, then 13.3 and 13.4 by branch', () => {
    const mm = new Set(TOOLKIT_RELEASE_DRIVERS.map(r => majorMinor(r.cuda)))
    expect([...mm].sort((a, b) => compareVersions(a, b))).toEqual(
      ['10.0', '10.1', '10.2']
        .concat(['11.0', '11.1', '11.2', '11.3', '11.4', '11.5', '11.6', '11.7', '11.8'])
        .concat(['12.0', '12.1', '12.2', '12.3', '12.4', '12.5', '12.6', '12.8', '12.9'])
        .concat(['13.0', '13.1', '13.2'])
    )
    expect(BRANCH_ONLY_ROWS.map(r => [r.cuda, r.branch])).toEqual([
      ['13.4', 615],
      ['13.3', 610]
    ])
    expect(newestTabulatedCuda()).toBe('13.4')
    // Newer CUDA, never an older branch: release drivers and branches only grow.
    const branchOf = (r: (typeof DRIVER_TABLE)[number]) =>
      r.kind === 'branch' ? r.branch : parseVersion(r.driver)![0]!
    const sorted = [...DRIVER_TABLE].sort((a, b) => compareVersions(a.cuda, b.cuda))
    sorted.forEach((r, i) => {
      const prev = sorted[i - 1]
      if (prev !== undefined) expect(branchOf(r)).toBeGreaterThanOrEqual(branchOf(prev))
      if (r.kind === 'release' && prev?.kind === 'release')
        expect(compareVersions(r.driver, prev.driver)).toBeGreaterThanOrEqual(0)
      expect(r.release).toMatch(/^CUDA \d+\.\d+( (GA|RC|Update \d))?$/)
    })
  })

  it('keeps the source (document and table) beside every row', () => {
    for (const row of DRIVER_TABLE) {
      expect(row.source.document).toMatch(/^CUDA Toolkit \d+\.\d+( Update \d| RC)? release notes/)
      expect(row.source.table).toMatch(/^Table [23] .*Driver Versions/)
    }
    expect(TOOLKIT_RELEASE_DRIVERS.find(r => r.cuda === '13.2.2')!.source.document).toMatch(
      /13\.2 Update 2 release notes.*archive\/13\.2\.2\//
    )
    expect(branchOnlyRow('13.4.2')!.source.document).toMatch(/13\.4 Update 1 release notes/)
    for (const f of CUDA_10_MINIMUM_DRIVERS) expect(f.source.table).toMatch(/^Table 2 .*10\.x Minimum/)
  })

  it('knows when a CUDA version is newer than the table', () => {
    expect(newerThanTable('13.4.2')).toBe(false)
    expect(newerThanTable('13.5')).toBe(true)
    expect(newerThanTable('14.0')).toBe(true)
    expect(newerThanTable('12.7')).toBe(false) // a gap, not newer
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
    expect(maxCudaForDriver('440.33')).toEqual({ full: '10.2.89', minorCompat: null }) // no minor compat in 10.x
    expect(maxCudaForDriver('595.71.05')).toEqual({ full: '13.2.2', minorCompat: 13 })
    expect(maxCudaForDriver('610.43.02')).toEqual({ full: '13.3', minorCompat: 13 })
    expect(maxCudaForDriver('615.1')).toEqual({ full: '13.4', minorCompat: 13 })
    expect(maxCudaForDriver('400.1')).toEqual({ full: null, minorCompat: null })
  })
})

/**
 * NVIDIA's values, written out here rather than read from the table: Table 3 of the CUDA 13.2 Update 2 notes
 * (13.2.x), of the 13.1 notes (11.0 to 13.1) and the 10.x rows all notes from 11.0 RC on print, Linux x86_64. The
 * table must hold exactly these rows.
 */
const NOTES_TABLE_3: readonly (readonly [string, string])[] = [
  ['13.2.2', '595.71.05'],
  ['13.2.1', '595.58.03'],
  ['13.2.0', '595.45.04'],
  ['13.1.1', '590.48.01'],
  ['13.1.0', '590.44.01'],
  ['13.0.2', '580.95.05'],
  ['13.0.1', '580.82.07'],
  ['13.0.0', '580.65.06'],
  ['12.9.1', '575.57.08'],
  ['12.9.0', '575.51.03'],
  ['12.8.1', '570.124.06'],
  ['12.8.0', '570.26'],
  ['12.6.3', '560.35.05'],
  ['12.6.2', '560.35.03'],
  ['12.6.1', '560.35.03'],
  ['12.6.0', '560.28.03'],
  ['12.5.1', '555.42.06'],
  ['12.5.0', '555.42.02'],
  ['12.4.1', '550.54.15'],
  ['12.4.0', '550.54.14'],
  ['12.3.1', '545.23.08'],
  ['12.3.0', '545.23.06'],
  ['12.2.2', '535.104.05'],
  ['12.2.1', '535.86.09'],
  ['12.2.0', '535.54.03'],
  ['12.1.1', '530.30.02'],
  ['12.1.0', '530.30.02'],
  ['12.0.1', '525.85.12'],
  ['12.0.0', '525.60.13'],
  ['11.8.0', '520.61.05'],
  ['11.7.1', '515.48.07'],
  ['11.7.0', '515.43.04'],
  ['11.6.2', '510.47.03'],
  ['11.6.1', '510.47.03'],
  ['11.6.0', '510.39.01'],
  ['11.5.2', '495.29.05'],
  ['11.5.1', '495.29.05'],
  ['11.5.0', '495.29.05'],
  ['11.4.4', '470.82.01'],
  ['11.4.3', '470.82.01'],
  ['11.4.2', '470.57.02'],
  ['11.4.1', '470.57.02'],
  ['11.4.0', '470.42.01'],
  ['11.3.1', '465.19.01'],
  ['11.3.0', '465.19.01'],
  ['11.2.2', '460.32.03'],
  ['11.2.1', '460.32.03'],
  ['11.2.0', '460.27.03'],
  ['11.1.1', '455.32'],
  ['11.1.0', '455.23'],
  ['11.0.3', '450.51.06'],
  ['11.0.2', '450.51.05'],
  ['11.0.1', '450.36.06'],
  ['10.2.89', '440.33'],
  ['10.1.105', '418.39'],
  ['10.0.130', '410.48']
]

/** The branches the CUDA 13.4 Update 1 notes give (no version within the branch). */
const NOTES_BRANCHES: readonly (readonly [string, number])[] = [
  ['13.4', 615],
  ['13.3', 610]
]

it("the table holds exactly the release notes' rows", () => {
  expect(TOOLKIT_RELEASE_DRIVERS.map(r => [r.cuda, r.driver])).toEqual(NOTES_TABLE_3)
  expect(BRANCH_ONLY_ROWS.map(r => [r.cuda, r.branch])).toEqual(NOTES_BRANCHES)
})

// Every row of the notes, both sides of its release driver: exactly the minimum and above → pass, just below →
// warn (strict: fail), unless below is also under the minimum the CUDA starts on → fail (every 10.x row: no
// minor-version compatibility).
describe.each(NOTES_TABLE_3)('CUDA %s (release driver %s)', (cuda, release) => {
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
})

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

// The issue 43 cases: the update rows of 13.2, and 10.2.89 on its own driver.
it.each([
  ['13.2.1', '595.45.04', 'warn'],
  ['13.2.1', '595.58.03', 'pass'],
  ['13.2.2', '595.58.03', 'warn'],
  ['13.2.2', '595.71.05', 'pass'],
  ['10.2.89', '440.33', 'pass'],
  ['10.2.89', '418.87.00', 'fail'], // a 10.1 driver: 10.x has no minor-version compatibility
  ['10.1.243', '418.39', 'pass'], // Table 3: "10.1.105 general release, and updates"
  ['10.0.130', '410.48', 'pass']
] as const)('CUDA %s on driver %s → %s', (cuda, driver, want) => {
  expect(gate({ driver, cuda, strict: false, forwardCompat: false, datacenterGpu: true }).status).toBe(want)
})

// Branch-only rows: a driver of the branch or newer passes; below it (but at the 13.x floor) warns, strict fails.
describe.each(NOTES_BRANCHES)('CUDA %s (driver branch R%d)', (cuda, branch) => {
  const g = (driver: string, strict = false) =>
    gate({ driver, cuda, strict, forwardCompat: false, datacenterGpu: true })

  it.each([`${branch}`, `${branch}.0.0`, `${branch}.43.02`, `${branch + 5}.10`])(
    'driver %s → pass',
    driver => {
      const r = g(driver)
      expect(r.status).toBe('pass')
      expect(r.details).toMatchObject({
        release_driver: null,
        release_branch: `R${branch}`,
        release_driver_source: 'table',
        reason: 'ok'
      })
      expect(r.message).toContain(
        `R${branch}, the driver branch NVIDIA's release notes give for CUDA ${cuda}`
      )
    }
  )

  it('says the notes give no version within the branch', () => {
    expect(g(`${branch}.43.02`).message).toContain('the notes give no version within the branch')
    expect(g(`${branch + 5}.10`).message).toContain(`on R${branch + 5}, newer than R${branch}`)
  })

  it(`driver ${branch - 1}.99.99 → warn, strict fail`, () => {
    const r = g(`${branch - 1}.99.99`)
    expect(r.status).toBe('warn')
    expect(r.details.reason).toBe('below-release-driver')
    expect(r.message).toMatch(/only through minor-version compatibility \(floor 580; R\d+, the driver branch/)
    expect(r.fix).toContain(`upgrade the host driver to branch R${branch} or newer`)
    expect(g(`${branch - 1}.99.99`, true).status).toBe('fail')
    expect(g('595.71.05').status).toBe('warn')
  })

  it('below the 13.x floor → fail', () => {
    const r = g('575.57.08')
    expect(r.status).toBe('fail')
    expect(r.details.reason).toBe('below-floor')
    expect(r.fix).toContain(`branch R${branch} or newer`)
  })

  it('applies to every release of the major.minor (13.4 GA is 13.4.1, Update 1 13.4.2)', () => {
    expect(
      gate({
        driver: `${branch}.1`,
        cuda: `${cuda}.2`,
        strict: true,
        forwardCompat: false,
        datacenterGpu: true
      }).status
    ).toBe('pass')
    expect(branchOnlyRow(`${cuda}.1.004`)?.branch).toBe(branch)
  })
})

describe('CUDA 10.x: each minor needs its own driver', () => {
  it.each(CUDA_10_MINIMUM_DRIVERS.map(f => [f.cuda, f.minDriver] as const))(
    'CUDA %s starts on %s, not below',
    (cuda, min) => {
      expect(minorVersionFloor(cuda)).toBe(min)
      const below = gate({
        driver: justBelow(min),
        cuda,
        strict: false,
        forwardCompat: false,
        datacenterGpu: true
      })
      expect(below.status).toBe('fail')
      expect(below.message).toContain('no minor-version compatibility')
      expect(below.message).toContain('cudaErrorInsufficientDriver')
      expect(below.message).not.toContain('CUDA_ERROR_SYSTEM_DRIVER_MISMATCH')
    }
  )
  it('has the values of the compatibility guide (Table 2)', () => {
    expect(CUDA_10_MINIMUM_DRIVERS.map(f => [f.cuda, f.minDriver])).toEqual([
      ['10.2', '440.33'],
      ['10.1', '418.39'],
      ['10.0', '410.48']
    ])
  })
})

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
    ['470.82.01', '11.4'], // R470 reports CUDA 11.4
    ['440.33', '10.2'], // R440 reports CUDA 10.2
    ['595.71.05', '13.2'], // 13.3 came with R610, so R595 stays 13.2
    ['610.43.02', '13.3'] // a branch-only entry: 13.4 came with R615
  ])('%s → %s', (driver, cuda) => expect(reportedCudaForDriver(driver)).toBe(cuda))

  it.each([
    ['565.57.01', 'a branch the table does not list (R565)'],
    ['550.40.07', 'below its branch release driver'],
    ['615.10.01', 'the newest branch: a later toolkit may come with it'],
    ['600.20', 'a branch the table does not list (between R595 and R610)'],
    ['400.1', 'older than the table'],
    ['not-a-version', 'not a version']
  ])('%s → unknown (%s)', driver => expect(reportedCudaForDriver(driver)).toBeNull())
})
