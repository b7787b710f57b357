/**
 * The host's GPUs as nvidia-smi reports them: the query-gpu CSV (settings that must match between arms),
 * the CUDA version and brands from `-q`, and compute processes. Parsers are pure (tested on recordings);
 * `readGpuFacts` is the one reader, through tools/nvidia-smi.
 */
import { EnvironmentError, getErrorMessage } from '../util/errors.js'
import { computeAppsArgs, NVIDIA_SMI, queryGpuArgs, readableArgs, runNvidiaSmi } from '../tools/nvidia-smi.js'
import { firstLine } from '../util/text.js'
import { setting } from '../util/setting-name.js'

/** Facts about one visible GPU. Missing, `[N/A]` or `[Not Supported]` fields are null. */
export interface GpuFacts {
  index: number
  name: string | null
  /** "Product Brand" of `nvidia-smi -q` (`NVIDIA`, `GeForce`, `Quadro RTX` …): NVIDIA_REQUIRE_* `brand=`. */
  brand: string | null
  uuid: string | null
  pci_bus_id: string | null
  driver_version: string | null
  /** The CUDA version the driver supports (nvidia-smi header "CUDA Version"). */
  cuda_version: string | null
  /** CUDA compute capability `MAJOR.MINOR` (`9.0`): NVIDIA_REQUIRE_* `arch`. Null when nvidia-smi has no `compute_cap`. */
  compute_cap: string | null
  /** `Enabled` | `Disabled` */
  persistence_mode: string | null
  /** `Enabled` | `Disabled`; null on GPUs without MIG. */
  mig_mode: string | null
  power_limit_w: number | null
  power_default_limit_w: number | null
  power_min_limit_w: number | null
  power_max_limit_w: number | null
  clocks_sm_mhz: number | null
  clocks_max_sm_mhz: number | null
  clocks_applications_graphics_mhz: number | null
  clocks_default_applications_graphics_mhz: number | null
  ecc_mode: string | null
  /** `Default` | `Exclusive_Process` | `Prohibited` */
  compute_mode: string | null
  memory_total_mib: number | null
  /** Other compute processes on this GPU when the facts were read (null: could not tell). */
  compute_processes: { pid: number; used_memory_mib: number | null }[] | null
}

export interface GpuReport {
  gpus: GpuFacts[]
  driver: string | null
  cuda_version: string | null
}

/**
 * Query fields, in order: the exact command recorded in test/__fixtures__/nvidia-smi/query-gpu-preflight.csv.cmd.
 * Names checked against `nvidia-smi --help-query-gpu`.
 */
export const GPU_QUERY_FIELDS = [
  'index',
  'name',
  'uuid',
  'driver_version',
  'persistence_mode',
  'mig.mode.current',
  'power.limit',
  'power.default_limit',
  'power.min_limit',
  'power.max_limit',
  'clocks.sm',
  'clocks.max.sm',
  'clocks.applications.graphics',
  'clocks.default_applications.graphics',
  'ecc.mode.current',
  'compute_mode',
  'memory.total',
  'pci.bus_id'
] as const
type GpuField = (typeof GPU_QUERY_FIELDS)[number]

/** Fields older drivers may not know; dropped and retried when nvidia-smi rejects them. */
const OPTIONAL_FIELDS: readonly GpuField[] = [
  'mig.mode.current',
  'clocks.applications.graphics',
  'clocks.default_applications.graphics',
  'power.default_limit',
  'power.min_limit',
  'power.max_limit',
  'pci.bus_id'
]

/**
 * The compute-capability query, its own call: `compute_cap` came with R510 drivers, and the toolkit decides
 * `arch` conditions with it (libnvidia-container reads nvmlDeviceGetCudaComputeCapability as `MAJOR.MINOR`).
 * Recorded in test/__fixtures__/nvidia-smi/query-compute-cap.csv.cmd.
 */
export const COMPUTE_CAP_FIELDS = ['index', 'compute_cap'] as const

/** `index, compute_cap` lines → compute capability by GPU index (`9.0`); lines that are not that are skipped. */
export function parseComputeCaps(text: string): Map<number, string> {
  const caps = new Map<number, string>()
  for (const line of text.split(/\r?\n/)) {
    const [index, cap] = line.split(',').map(v => cleanValue(v))
    if (index === undefined || index === null || cap === undefined || cap === null) continue
    if (/^\d+$/.test(index) && /^\d+\.\d+$/.test(cap)) caps.set(Number(index), cap)
  }
  return caps
}

/** nvidia-smi's spellings of "no value". */
export function cleanValue(raw: string | undefined): string | null {
  if (raw === undefined) return null
  const v = raw.trim()
  if (
    v === '' ||
    /^\[.*\]$/.test(v) ||
    /^(N\/A|Not Supported|Unknown Error|Insufficient Permissions)$/i.test(v)
  )
    return null
  return v
}

export function numberValue(raw: string | undefined): number | null {
  const v = cleanValue(raw)
  if (v === null) return null
  // With `nounits` the unit is gone; without, strip it ("700.00 W", "81559 MiB").
  const m = /^(-?\d+(?:\.\d+)?)/.exec(v)
  if (!m?.[1]) return null
  const n = Number.parseFloat(m[1])
  return Number.isFinite(n) ? n : null
}

/** The power limits (W) and clocks (MHz), each from its query field, in the record's order. */
const LIMITS_AND_CLOCKS = {
  power_limit_w: 'power.limit',
  power_default_limit_w: 'power.default_limit',
  power_min_limit_w: 'power.min_limit',
  power_max_limit_w: 'power.max_limit',
  clocks_sm_mhz: 'clocks.sm',
  clocks_max_sm_mhz: 'clocks.max.sm',
  clocks_applications_graphics_mhz: 'clocks.applications.graphics',
  clocks_default_applications_graphics_mhz: 'clocks.default_applications.graphics'
} as const satisfies Partial<Record<keyof GpuFacts, GpuField>>

/** Parse `--query-gpu=<fields> --format=csv,noheader,nounits` output. Blank lines are skipped. */
export function parseQueryGpuCsv(text: string, fields: readonly string[] = GPU_QUERY_FIELDS): GpuFacts[] {
  const gpus: GpuFacts[] = []
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue
    const parts = line.split(',')
    if (parts.length < fields.length) {
      throw new EnvironmentError(
        `nvidia-smi --query-gpu returned ${parts.length} fields where ${fields.length} were asked: ${JSON.stringify(line)}`
      )
    }
    // GPU names carry no commas in practice; should one, the surplus belongs to the name.
    const nameAt = fields.indexOf('name')
    const surplus = parts.length - fields.length
    const values =
      surplus > 0 && nameAt >= 0
        ? [
            ...parts.slice(0, nameAt),
            parts.slice(nameAt, nameAt + surplus + 1).join(','),
            ...parts.slice(nameAt + surplus + 1)
          ]
        : parts
    const get = (field: string): string | undefined => {
      const i = fields.indexOf(field)
      return i < 0 ? undefined : values[i]
    }
    const index = numberValue(get('index'))
    gpus.push({
      index: index ?? gpus.length,
      name: cleanValue(get('name')),
      // Not a --query-gpu field (nvidia-smi --help-query-gpu lists none): read from `nvidia-smi -q`.
      brand: null,
      uuid: cleanValue(get('uuid')),
      pci_bus_id: cleanValue(get('pci.bus_id')),
      driver_version: cleanValue(get('driver_version')),
      cuda_version: null,
      // Its own query (COMPUTE_CAP_FIELDS), so a driver without the field loses nothing else.
      compute_cap: null,
      persistence_mode: cleanValue(get('persistence_mode')),
      mig_mode: cleanValue(get('mig.mode.current')),
      ...(Object.fromEntries(
        Object.entries(LIMITS_AND_CLOCKS).map(([fact, field]) => [fact, numberValue(get(field))])
      ) as Record<keyof typeof LIMITS_AND_CLOCKS, number | null>),
      ecc_mode: cleanValue(get('ecc.mode.current')),
      compute_mode: cleanValue(get('compute_mode')),
      memory_total_mib: numberValue(get('memory.total')),
      compute_processes: null
    })
  }
  return gpus
}

/** "CUDA Version: 13.0" from the plain `nvidia-smi` header, or "CUDA Version : 13.0" from `nvidia-smi -q`. */
export function parseCudaVersion(text: string): string | null {
  const m = /CUDA Version\s*:\s*(\d+\.\d+(?:\.\d+)?)/.exec(text)
  return m?.[1] ?? null
}

/** One `GPU <bus id>` section of `nvidia-smi -q`: its bus id and "Product Brand" (null when absent or N/A). */
export interface QueryBrand {
  pci_bus_id: string
  brand: string | null
}

/** Sections of `nvidia-smi -q` start at column 0 with `GPU 00000000:00:06.0`; the fields are indented. */
const GPU_SECTION = /^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$/
const PRODUCT_BRAND = /^\s+Product Brand\s*:\s*(.*)$/

/** The brand of every GPU section of `nvidia-smi -q`, in order. */
export function parseProductBrands(text: string): QueryBrand[] {
  const out: QueryBrand[] = []
  for (const line of text.split(/\r?\n/)) {
    const section = GPU_SECTION.exec(line)
    if (section?.[1]) out.push({ pci_bus_id: section[1], brand: null })
    const brand = PRODUCT_BRAND.exec(line)
    const current = out[out.length - 1]
    if (brand && current && current.brand === null) current.brand = cleanValue(brand[1])
  }
  return out
}

/** Give each GPU its brand: by PCI bus id, or by position when the query had no bus id and the counts agree. */
export function assignBrands(gpus: GpuFacts[], brands: readonly QueryBrand[]): void {
  const byBus = new Map(brands.map(b => [b.pci_bus_id.toLowerCase(), b.brand]))
  gpus.forEach((g, i) => {
    g.brand =
      g.pci_bus_id !== null
        ? (byBus.get(g.pci_bus_id.toLowerCase()) ?? null)
        : brands.length === gpus.length
          ? (brands[i]?.brand ?? null)
          : null
  })
}

/** Parse `--query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits`. */
export function parseComputeApps(
  text: string
): { gpu_uuid: string; pid: number; used_memory_mib: number | null }[] {
  const apps: { gpu_uuid: string; pid: number; used_memory_mib: number | null }[] = []
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || /No running/i.test(line)) continue
    const [uuid, pid, mem] = line.split(',')
    const u = cleanValue(uuid)
    const p = numberValue(pid)
    if (u === null || p === null) continue
    apps.push({ gpu_uuid: u, pid: p, used_memory_mib: numberValue(mem) })
  }
  return apps
}

/** Is this a data-center GPU (where CUDA forward compatibility is supported)? Null when unknown. */
export function isDatacenterGpu(name: string | null): boolean | null {
  if (!name) return null
  if (/GeForce|TITAN|Quadro|RTX\s*\d{4}(?!.*Server)|Laptop/i.test(name)) return false
  return /\b(Tesla|[ABHLT]\d{1,3}[A-Z]?|H\d{3}|B\d{3}|GB\d{3}|GH\d{3}|V100|P100|P40|P4|K80|A800|H800|H20|L40S?|L20|RTX PRO \d+ Blackwell Server)\b/i.test(
    name
  )
    ? true
    : null
}

/**
 * Read GPU facts for every visible GPU from nvidia-smi. Throws EnvironmentError (exit 2) when
 * nvidia-smi is missing, cannot talk to the driver, or sees no GPU.
 */
export async function readGpuFacts(
  options: {
    nvidiaSmi?: string
    /** What else the caller can do without a GPU; the check's `device: cpu` by default (`gate` gives --driver). */
    otherwise?: string
  } = {}
): Promise<GpuReport> {
  const tool = options.nvidiaSmi ?? NVIDIA_SMI
  const otherwise = options.otherwise ?? `run with ${setting('device', 'cpu')}`
  let fields: string[] = [...GPU_QUERY_FIELDS]
  let res = await runNvidiaSmi(tool, queryGpuArgs(fields))
  // Older drivers reject fields they do not know: drop the optional one named and retry.
  for (let tries = 0; res.exitCode !== 0 && res.exitCode !== 127 && tries < OPTIONAL_FIELDS.length; tries++) {
    const bad = /Field "([^"]+)" is not a valid field/i.exec(res.stdout + res.stderr)?.[1]
    if (!bad || !OPTIONAL_FIELDS.includes(bad as GpuField)) break
    fields = fields.filter(f => f !== bad)
    res = await runNvidiaSmi(tool, queryGpuArgs(fields))
  }
  if (res.exitCode === 127) {
    throw new EnvironmentError(
      `${tool} not found: the NVIDIA driver is not installed or not on PATH; install the driver, or ${otherwise}`
    )
  }
  const out = res.stdout + res.stderr
  if (res.exitCode !== 0 || /No devices were found/i.test(out)) {
    if (/No devices were found/i.test(out)) {
      throw new EnvironmentError(
        `nvidia-smi sees no GPU (No devices were found); check the driver, or ${otherwise}`
      )
    }
    throw new EnvironmentError(
      `nvidia-smi failed (exit ${res.exitCode}): ${firstLine(out) || 'no output'}; check the NVIDIA driver, or ${otherwise}`
    )
  }
  let gpus: GpuFacts[]
  try {
    gpus = parseQueryGpuCsv(res.stdout, fields)
  } catch (error) {
    throw new EnvironmentError(getErrorMessage(error))
  }
  if (gpus.length === 0) {
    throw new EnvironmentError(`nvidia-smi lists no GPU; check the driver, or ${otherwise}`)
  }

  // The CUDA version the driver supports and each GPU's brand are only in the human-readable outputs;
  // `-q` has both (the short summary is asked only when it lacks the CUDA version).
  const full = await runNvidiaSmi(tool, readableArgs(true))
  assignBrands(gpus, full.exitCode === 0 ? parseProductBrands(full.stdout) : [])
  let cuda = full.exitCode === 0 ? parseCudaVersion(full.stdout) : null
  if (cuda === null) cuda = parseCudaVersion((await runNvidiaSmi(tool, readableArgs(false))).stdout)

  const capsRun = await runNvidiaSmi(tool, queryGpuArgs(COMPUTE_CAP_FIELDS))
  const caps = capsRun.exitCode === 0 ? parseComputeCaps(capsRun.stdout) : new Map<number, string>()
  for (const g of gpus) g.compute_cap = caps.get(g.index) ?? null

  const apps = await runNvidiaSmi(tool, computeAppsArgs())
  const procs = apps.exitCode === 0 ? parseComputeApps(apps.stdout) : null
  for (const g of gpus) {
    g.cuda_version = cuda
    g.compute_processes =
      procs === null
        ? null
        : procs
            .filter(p => p.gpu_uuid === g.uuid)
            .map(p => ({ pid: p.pid, used_memory_mib: p.used_memory_mib }))
  }
  return { gpus, driver: gpus.find(g => g.driver_version)?.driver_version ?? null, cuda_version: cuda }
}

/** Whether all GPUs are data-center GPUs: true / false, or null when unknown. */
export function allDatacenter(names: readonly (string | null)[]): boolean | null {
  const verdicts = names.map(isDatacenterGpu)
  if (verdicts.length === 0 || verdicts.some(v => v === null))
    return verdicts.some(v => v === false) ? false : null
  return verdicts.every(v => v === true)
}

/** The GPUs whose power-limit range nvidia-smi reported (a power-restore file is checked against them). */
export function powerRanges(gpus: readonly GpuFacts[]): { uuid: string; min_w: number; max_w: number }[] {
  const out: { uuid: string; min_w: number; max_w: number }[] = []
  for (const g of gpus)
    if (g.uuid && g.power_min_limit_w !== null && g.power_max_limit_w !== null)
      out.push({ uuid: g.uuid, min_w: g.power_min_limit_w, max_w: g.power_max_limit_w })
  return out
}
