/** The pooling key: what splits groups, what does not, and how the difference is explained. */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { groupKeyDifferences, groupKeyOf, groupKeyString } from '../../src/fleet/group-key.js'
import { readSource, readSources, sourceLabels } from '../../src/fleet/sources.js'
import { InputError } from '../../src/util/errors.js'
import type { Arm, CheckSummary, Fingerprint } from '../../src/types/index.js'

// Facts as the H200 host reported them (docs/evidence/2026-11-22-h200.md).
const NATIVE: Fingerprint = {
  host: 'gpu-runner-07',
  device: 'gpu',
  gpu_name: 'NVIDIA H200',
  gpu_uuid: 'GPU-aaaa',
  driver: '580.159.04',
  cuda: '13.0',
  image: null,
  image_digest: null,
  runtime: null,
  runtime_version: null,
  gpu_access: null,
  mig_mode: 'Disabled',
  persistence_mode: 'Enabled',
  clocks: null
}
const CONTAINER: Fingerprint = {
  ...NATIVE,
  image: 'local/pytorch:25.10',
  image_digest: 'sha256:' + 'a'.repeat(64),
  runtime: 'docker',
  runtime_version: '20.10.24',
  gpu_access: 'devices'
}
const ARMS: Arm[] = [
  { label: 'native', kind: 'native', image: null },
  { label: 'container', kind: 'container', image: 'local/pytorch:25.10' }
]

function check(
  fp: Partial<Fingerprint> = {},
  container: Partial<Fingerprint> = {},
  arms: Arm[] = ARMS
): Pick<CheckSummary, 'arms' | 'fingerprints'> {
  return {
    arms,
    fingerprints: {
      [arms[0]!.label]: { ...NATIVE, ...fp },
      [arms[1]!.label]: { ...CONTAINER, ...fp, ...container }
    }
  }
}

describe('groupKeyOf / groupKeyString', () => {
  it('pools different hosts and GPU UUIDs of the same SKU, driver, image and access mode', () => {
    const a = groupKeyOf(check())
    const b = groupKeyOf(check({ host: 'gpu-runner-08', gpu_uuid: 'GPU-bbbb', clocks: 'x' }))
    expect(groupKeyString(a)).toBe(groupKeyString(b))
    expect(groupKeyDifferences(a, b)).toEqual([])
  })

  it.each([
    ['gpu_name', { gpu_name: 'NVIDIA H100 80GB HBM3' }, {}, 'gpu_name: NVIDIA H200 vs NVIDIA H100 80GB HBM3'],
    ['driver', { driver: '570.86.15' }, {}, 'driver: 580.159.04 vs 570.86.15'],
    ['device', { device: 'cpu' as const }, {}, 'device: gpu vs cpu'],
    ['mig_mode', { mig_mode: 'Enabled' }, {}, 'mig_mode: Disabled vs Enabled'],
    [
      'image digest',
      {},
      { image_digest: 'sha256:' + 'b'.repeat(64) },
      `image_digest (container): sha256:${'a'.repeat(64)} vs sha256:${'b'.repeat(64)}`
    ],
    ['gpu access', {}, { gpu_access: 'cdi' as const }, 'gpu_access (container): devices vs cdi']
  ])('splits on %s and says so', (_name, fp, container, reason) => {
    const a = groupKeyOf(check())
    const b = groupKeyOf(check(fp, container))
    expect(groupKeyString(a)).not.toBe(groupKeyString(b))
    expect(groupKeyDifferences(a, b)).toEqual([reason])
  })

  it('treats an unknown fact as its own value: never pooled with a known one', () => {
    const a = groupKeyOf(check())
    const b = groupKeyOf(check({ driver: null }))
    expect(groupKeyString(a)).not.toBe(groupKeyString(b))
    expect(groupKeyDifferences(a, b)).toEqual(['driver: 580.159.04 vs unknown'])
  })

  it('splits on different arms (labels or order) and stops comparing per-arm facts', () => {
    const swapped: Arm[] = [ARMS[1]!, ARMS[0]!]
    const a = groupKeyOf(check())
    const b = groupKeyOf(check({}, {}, swapped))
    expect(groupKeyDifferences(a, b)).toEqual(['arms: native,container vs container,native'])
  })

  it('lists several differences at once', () => {
    const d = groupKeyDifferences(groupKeyOf(check()), groupKeyOf(check({ gpu_name: 'X', driver: 'Y' })))
    expect(d).toEqual(['gpu_name: NVIDIA H200 vs X', 'driver: 580.159.04 vs Y'])
  })
})

describe('sourceLabels', () => {
  it('uses folder names, lengthened by parents only where they collide', () => {
    expect(sourceLabels(['/a/h100', '/a/h200'])).toEqual(['h100', 'h200'])
    expect(sourceLabels(['/x/h100/results', '/x/h200/results', '/y/other'])).toEqual([
      'h100/results',
      'h200/results',
      'other'
    ])
    expect(sourceLabels(['/results', '/a/results'])).toEqual(['results', 'a/results'])
  })
})

describe('readSource / readSources', () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'aggregate-src-'))
  const summary = {
    schema: 'gpu-overhead/summary@1',
    check_id: 'c1',
    ...check()
  }
  const record = {
    check_id: 'c1',
    workload: 'matmul',
    environment: 'container',
    run: 1,
    iteration: 1,
    metric: 'kernel_ms',
    value: 40.9,
    unit: 'ms',
    scope: 'steady',
    time: '2026-11-22T00:00:00Z',
    params: {},
    fingerprint: CONTAINER
  }
  function folder(name: string, files: Record<string, string>): string {
    const dir = path.join(ws, name)
    fs.mkdirSync(dir, { recursive: true })
    for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text)
    return dir
  }
  const good = folder('good', {
    'summary.json': JSON.stringify(summary),
    'results.jsonl': `${JSON.stringify(record)}\n`
  })

  it('reads a folder and keeps its records', () => {
    const s = readSource(good)
    expect(s.label).toBe('good')
    expect(s.records).toHaveLength(1)
  })

  it.each([
    ['a missing folder', () => path.join(ws, 'nope'), /does not exist/],
    ['a missing summary', () => folder('nosummary', { 'results.jsonl': '' }), /summary.json is missing/],
    [
      'another schema',
      () => folder('schema', { 'summary.json': '{"schema":"x"}', 'results.jsonl': '' }),
      /does not have schema gpu-overhead\/summary@1/
    ],
    [
      'records that disagree with the summary',
      () =>
        folder('torn', {
          'summary.json': JSON.stringify(summary),
          'results.jsonl': `${JSON.stringify({ ...record, fingerprint: { ...CONTAINER, driver: '570.86.15' } })}\n`
        }),
      /disagree on driver of arm container/
    ],
    [
      'records of an unknown arm',
      () =>
        folder('arm', {
          'summary.json': JSON.stringify(summary),
          'results.jsonl': `${JSON.stringify({ ...record, environment: 'container#2' })}\n`
        }),
      /arm "container#2"/
    ]
  ])('refuses %s with an InputError naming the folder', (_name, make, why) => {
    const dir = make()
    let error: unknown
    try {
      readSource(dir)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).exitCode).toBe(2)
    expect((error as Error).message).toContain(JSON.stringify(dir))
    expect((error as Error).message).toMatch(why)
  })

  it('refuses the same folder twice and two copies of one check (they would count twice)', () => {
    expect(() => readSources([good, `${good}/`])).toThrow(/given twice/)
    const copy = folder('copy', {
      'summary.json': JSON.stringify(summary),
      'results.jsonl': `${JSON.stringify(record)}\n`
    })
    expect(() => readSources([good, copy])).toThrow(/holds check c1/)
    expect(() => readSources([])).toThrow(InputError)
  })
})
