import { gateCommand } from '../../src/commands/gate.js'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { EnvironmentError } from '../../src/util/errors.js'
import {
  checkClocks,
  checkIsolation,
  checkMig,
  checkPersistence,
  checkPowerLimit
} from '../../src/preflight/gpu-checks.js'
import {
  cleanValue,
  GPU_QUERY_FIELDS,
  COMPUTE_CAP_FIELDS,
  parseComputeCaps,
  isDatacenterGpu,
  numberValue,
  parseComputeApps,
  parseCudaVersion,
  parseProductBrands,
  assignBrands,
  parseQueryGpuCsv,
  readGpuFacts
} from '../../src/preflight/gpu.js'
import type { GpuFacts } from '../../src/preflight/gpu.js'

// Real outputs recorded on the GPU host (H200, driver 580.159.04); see the READMEs there.
const FIX = path.join(import.meta.dirname, '../__fixtures__/nvidia-smi')
const MINE = path.join(import.meta.dirname, 'fixtures/nvidia-smi-h200')
const REPLAY = path.join(import.meta.dirname, 'fixtures/replay-nvidia-smi.sh')
const read = (dir: string, f: string): string => readFileSync(path.join(dir, f), 'utf8')
/** The field list of a recorded `--query-gpu=...` command. */
const recordedFields = (cmdFile: string): string[] =>
  /--query-gpu=(\S+)/.exec(read(FIX, cmdFile))![1]!.split(',')

describe('nvidia-smi parsing (recorded on the GPU host)', () => {
  it('queries exactly the recorded command, and every field is a real one', () => {
    expect(recordedFields('query-gpu-preflight.csv.cmd')).toEqual([...GPU_QUERY_FIELDS])
    const help = read(FIX, 'help-query-gpu.txt')
    for (const f of GPU_QUERY_FIELDS) expect(help).toContain(`"${f}"`)
  })

  it('reads the compute capability (NVIDIA_REQUIRE_* arch) with the recorded query', () => {
    expect(recordedFields('query-compute-cap.csv.cmd')).toEqual([...COMPUTE_CAP_FIELDS])
    expect(read(FIX, 'help-query-gpu.txt')).toContain('"compute_cap"')
    expect([...parseComputeCaps(read(FIX, 'query-compute-cap.csv'))]).toEqual([[0, '9.0']])
    // Lines that are not `index, MAJOR.MINOR` (an old driver's complaint, [N/A]) are skipped.
    expect([
      ...parseComputeCaps('Field "compute_cap" is not a valid field to query.\n1, [N/A]\n2, 12.0\n')
    ]).toEqual([[2, '12.0']])
  })

  it('parses the H200 row', () => {
    const [g, ...rest] = parseQueryGpuCsv(read(FIX, 'query-gpu-preflight.csv'))
    expect(rest).toEqual([])
    expect(g).toEqual<GpuFacts>({
      index: 0,
      name: 'NVIDIA H200',
      brand: null, // not a --query-gpu field: read from nvidia-smi -q
      uuid: 'GPU-faafcc66-a40d-b2a9-3c4a-f026277663ea',
      pci_bus_id: '00000000:00:06.0',
      driver_version: '580.159.04',
      cuda_version: null,
      compute_cap: null, // its own query: COMPUTE_CAP_FIELDS
      persistence_mode: 'Enabled',
      mig_mode: 'Disabled',
      power_limit_w: 700,
      power_default_limit_w: 700,
      power_min_limit_w: 200,
      power_max_limit_w: 700,
      clocks_sm_mhz: 345,
      clocks_max_sm_mhz: 1980,
      clocks_applications_graphics_mhz: 1980,
      clocks_default_applications_graphics_mhz: 1980,
      ecc_mode: 'Enabled',
      compute_mode: 'Default',
      memory_total_mib: 143771,
      compute_processes: null
    })
  })

  it('parses the variant with header and units too', () => {
    const [header, ...rows] = read(FIX, 'query-gpu-preflight-header.csv').trim().split('\n')
    const fields = recordedFields('query-gpu-preflight-header.csv.cmd')
    expect(header!.split(', ')).toHaveLength(fields.length)
    const [g] = parseQueryGpuCsv(rows.join('\n'), fields)
    expect(g).toMatchObject({
      power_limit_w: 700,
      clocks_sm_mhz: 345,
      clocks_max_sm_mhz: 1980,
      memory_total_mib: 143771
    })
    expect(g!.clocks_applications_graphics_mhz).toBeNull() // not asked in that command
  })

  it('reads the CUDA version the driver supports from both human formats', () => {
    expect(parseCudaVersion(read(FIX, 'nvidia-smi.txt'))).toBe('13.0')
    expect(parseCudaVersion(read(FIX, 'nvidia-smi-q.txt'))).toBe('13.0')
    expect(parseCudaVersion(read(MINE, 'version.txt'))).toBe('13.0')
    expect(parseCudaVersion('no header here')).toBeNull()
  })

  it('reads each GPU section\'s "Product Brand" from nvidia-smi -q; unknown where a section has none', () => {
    expect(parseProductBrands(read(FIX, 'nvidia-smi-q.txt'))).toEqual([
      { pci_bus_id: '00000000:00:06.0', brand: 'NVIDIA' }
    ])
    // `-q -d POWER` on the 2-GPU host: two GPU sections, no product fields, so no brand (never guessed).
    const twoGpu = read(path.join(FIX, '../nvidia-smi-2gpu'), 'nvidia-smi-q-power-2gpu.txt')
    expect(parseProductBrands(twoGpu)).toEqual([
      { pci_bus_id: '00000000:00:06.0', brand: null },
      { pci_bus_id: '00000000:00:07.0', brand: null }
    ])
    // --query-gpu has no brand field on this driver: the recorded list of fields names none.
    expect(read(FIX, 'help-query-gpu.txt')).not.toMatch(/"[^"]*brand[^"]*"/i)
  })

  it('gives each GPU the brand of its own bus id', () => {
    const gpus = parseQueryGpuCsv(read(path.join(FIX, '../nvidia-smi-2gpu'), 'query-gpu-preflight-2gpu.csv'))
    assignBrands(gpus, [
      { pci_bus_id: '00000000:00:07.0', brand: 'second' },
      { pci_bus_id: '00000000:00:06.0', brand: 'first' }
    ])
    expect(gpus.map(g => g.brand)).toEqual(['first', 'second'])
    assignBrands(gpus, parseProductBrands(read(FIX, 'nvidia-smi-q.txt')))
    expect(gpus.map(g => g.brand)).toEqual(['NVIDIA', null]) // 00:07.0 has no section there
  })

  it('parses the (empty) compute-apps list', () => {
    expect(read(MINE, 'compute-apps.csv')).toBe('')
    expect(parseComputeApps(read(MINE, 'compute-apps.csv'))).toEqual([])
    const help = read(MINE, 'help-query-compute-apps.txt')
    for (const f of ['gpu_uuid', 'pid', 'used_memory']) expect(help).toContain(`"${f}"`)
  })

  it('recognises the "not a valid field" message nvidia-smi prints', () => {
    expect(read(FIX, 'query-gpu-bad-field.txt')).toMatch(/Field "([^"]+)" is not a valid field/)
  })

  it.each([
    ['[N/A]', null],
    ['[Not Supported]', null],
    ['N/A', null],
    ['[Unknown Error]', null],
    ['', null],
    [undefined, null],
    [' Enabled ', 'Enabled']
  ])('cleans %j → %j', (raw, want) => expect(cleanValue(raw)).toBe(want))

  it.each([
    ['700.00', 700],
    ['700.00 W', 700],
    ['143771 MiB', 143771],
    ['[N/A]', null],
    ['abc', null]
  ])('reads number %j → %j', (raw, want) => expect(numberValue(raw)).toBe(want))

  it('keeps [N/A] fields as null, never guesses, and fails on too few fields', () => {
    const row = read(FIX, 'query-gpu-preflight.csv').trim().split(', ')
    row[5] = '[N/A]' // as on GPUs without MIG
    row[12] = '[Not Supported]'
    const [g] = parseQueryGpuCsv(row.join(', '))
    expect(g!.mig_mode).toBeNull()
    expect(g!.clocks_applications_graphics_mhz).toBeNull()
    expect(() => parseQueryGpuCsv('0, NVIDIA H200')).toThrow(EnvironmentError)
  })

  it.each([
    ['NVIDIA H200', true],
    ['NVIDIA H100 80GB HBM3', true],
    ['NVIDIA A100-SXM4-80GB', true],
    ['Tesla T4', true],
    ['NVIDIA L40S', true],
    ['NVIDIA GeForce RTX 4090', false],
    ['NVIDIA RTX 6000 Ada Generation', false],
    ['Something New', null],
    [null, null]
  ])('data-center GPU? %j → %j', (name, want) => expect(isDatacenterGpu(name)).toBe(want))
})

describe('readGpuFacts', () => {
  it('reads every visible GPU through nvidia-smi (replaying the recordings)', async () => {
    const report = await readGpuFacts({ nvidiaSmi: REPLAY })
    expect(report.driver).toBe('580.159.04')
    expect(report.cuda_version).toBe('13.0')
    expect(report.gpus).toHaveLength(1)
    expect(report.gpus[0]).toMatchObject({
      name: 'NVIDIA H200',
      brand: 'NVIDIA',
      cuda_version: '13.0',
      compute_cap: '9.0',
      compute_processes: []
    })
  })

  it('throws EnvironmentError (exit 2) when nvidia-smi is missing', async () => {
    const err = await readGpuFacts({ nvidiaSmi: 'nvidia-smi-does-not-exist' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EnvironmentError)
    expect((err as EnvironmentError).exitCode).toBe(2)
    // A stage alone names settings as the action does (util/setting-name.ts); the CLI entry says --device cpu.
    expect((err as Error).message).toMatch(/not found.*or run with device: cpu$/)
  })

  it('gate, which has no --device, says what it takes instead: the driver by hand', async () => {
    const err = await gateCommand({
      cuda: '13.0',
      strict: false,
      format: 'text',
      runtime: 'docker',
      nvidiaSmi: 'nvidia-smi-does-not-exist'
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EnvironmentError)
    expect((err as Error).message).toMatch(/not found.*--driver VER/)
    expect((err as Error).message).not.toMatch(/--device/)
  })

  it('throws EnvironmentError when nvidia-smi fails', async () => {
    await expect(readGpuFacts({ nvidiaSmi: 'false' })).rejects.toThrow(/nvidia-smi failed \(exit 1\)/)
  })
})

describe('GPU warnings', () => {
  const h200 = (): GpuFacts => ({
    ...parseQueryGpuCsv(read(FIX, 'query-gpu-preflight.csv'))[0]!,
    compute_processes: []
  })

  it('the recorded H200 passes every check', () => {
    const g = [h200()]
    expect(checkPersistence(g).status).toBe('pass')
    expect(checkMig(g, null).status).toBe('pass')
    expect(checkClocks(g).status).toBe('pass')
    expect(checkPowerLimit(g).status).toBe('pass')
    expect(checkIsolation(g, 'gpus').status).toBe('pass')
  })

  it('persistence mode off → warn with the fix', () => {
    const r = checkPersistence([{ ...h200(), persistence_mode: 'Disabled' }])
    expect(r.status).toBe('warn')
    expect(r.fix).toContain('nvidia-smi -pm 1')
  })

  it('MIG enabled without a MIG device → warn; with one → pass', () => {
    const g = [{ ...h200(), mig_mode: 'Enabled' }]
    expect(checkMig(g, 'all').status).toBe('warn')
    expect(checkMig(g, null).fix).toContain('-mig 0')
    expect(checkMig(g, 'MIG-5c89cb3a-0a58-5b2f-9d3b-1e6e1f2d3c4b').status).toBe('pass')
  })

  it('applications clocks away from default → warn', () => {
    const r = checkClocks([{ ...h200(), clocks_applications_graphics_mhz: 1410 }])
    expect(r.status).toBe('warn')
    expect(r.message).toContain('1410 MHz vs default 1980 MHz')
    expect(r.fix).toContain('nvidia-smi -rac')
    expect(checkClocks([{ ...h200(), clocks_applications_graphics_mhz: null }]).status).toBe('skip')
  })

  it('power cap below default → warn', () => {
    expect(checkPowerLimit([{ ...h200(), power_limit_w: 500 }]).status).toBe('warn')
  })

  it('a shared GPU without MIG under container access → warn to use MIG/MPS', () => {
    const shared = [{ ...h200(), compute_processes: [{ pid: 4242, used_memory_mib: 1024 }] }]
    const r = checkIsolation(shared, 'gpus')
    expect(r.status).toBe('warn')
    expect(r.message).toContain('--gpus')
    expect(r.message).toContain('no GPU-memory limit')
    expect(r.fix).toMatch(/MIG.*MPS/)
    expect(checkIsolation([{ ...h200(), compute_processes: null }], 'cdi').status).toBe('skip')
  })
})
