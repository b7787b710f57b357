import type { GpuAccess, PreflightResult } from '../types/index.js'
import type { GpuFacts } from './gpu.js'

function label(g: GpuFacts): string {
  return `GPU ${g.index}${g.name ? ` (${g.name})` : ''}`
}

/** Persistence mode off: each process start pays the driver (re)initialisation. */
export function checkPersistence(gpus: readonly GpuFacts[]): PreflightResult {
  const known = gpus.filter(g => g.persistence_mode !== null)
  if (known.length === 0) {
    return {
      name: 'persistence-mode',
      status: 'skip',
      message: 'persistence mode not reported by nvidia-smi',
      fix: null
    }
  }
  const off = known.filter(g => !/^enabled$/i.test(g.persistence_mode ?? ''))
  if (off.length === 0) {
    return { name: 'persistence-mode', status: 'pass', message: 'persistence mode is on', fix: null }
  }
  return {
    name: 'persistence-mode',
    status: 'warn',
    message:
      `persistence mode is off on ${off.map(label).join(', ')}: the driver is torn down between processes, so every ` +
      `run's start-up (native and container alike) includes driver initialisation`,
    fix: 'enable it: sudo nvidia-smi -pm 1 (or run the nvidia-persistenced daemon)',
    details: { gpus: off.map(g => g.index) }
  }
}

/** MIG enabled, but the run does not name a MIG device: CUDA sees no usable device, or not the one meant. */
export function checkMig(gpus: readonly GpuFacts[], gpuDevices: string | null | undefined): PreflightResult {
  const mig = gpus.filter(g => /^enabled$/i.test(g.mig_mode ?? ''))
  if (mig.length === 0) {
    return { name: 'mig', status: 'pass', message: 'MIG is not enabled', fix: null }
  }
  if (gpuDevices && /\bMIG-/.test(gpuDevices)) {
    return { name: 'mig', status: 'pass', message: `MIG device chosen: ${gpuDevices}`, fix: null }
  }
  return {
    name: 'mig',
    status: 'warn',
    message:
      `MIG is enabled on ${mig.map(label).join(', ')} but no MIG device was chosen: the workload gets whichever ` +
      `instance the runtime exposes (or none), so native and container may not measure the same slice`,
    fix: 'choose a MIG instance (a MIG-<uuid> from nvidia-smi -L) for both arms, or disable MIG: sudo nvidia-smi -i <gpu> -mig 0',
    details: { gpus: mig.map(g => g.index) }
  }
}

/** A per-GPU setting against its default: skip when nvidia-smi reports it for no GPU, warn naming the GPUs off it. */
function defaultCheck(o: {
  name: string
  gpus: readonly GpuFacts[]
  reported: (g: GpuFacts) => boolean
  offDefault: (g: GpuFacts) => boolean
  notReported: string
  atDefault: string
  message: (off: readonly GpuFacts[]) => string
  fix: string
}): PreflightResult {
  const known = o.gpus.filter(o.reported)
  if (known.length === 0) return { name: o.name, status: 'skip', message: o.notReported, fix: null }
  const off = known.filter(o.offDefault)
  if (off.length === 0) return { name: o.name, status: 'pass', message: o.atDefault, fix: null }
  return {
    name: o.name,
    status: 'warn',
    message: o.message(off),
    fix: o.fix,
    details: { gpus: off.map(g => g.index) }
  }
}

/** Applications clocks changed from their default: results are not comparable with other hosts or runs. */
export function checkClocks(gpus: readonly GpuFacts[]): PreflightResult {
  return defaultCheck({
    name: 'clocks',
    gpus,
    reported: g =>
      g.clocks_applications_graphics_mhz !== null && g.clocks_default_applications_graphics_mhz !== null,
    offDefault: g => g.clocks_applications_graphics_mhz !== g.clocks_default_applications_graphics_mhz,
    notReported: 'applications clocks not reported by nvidia-smi',
    atDefault: 'applications clocks at their defaults',
    message: off =>
      'applications clocks differ from the default on ' +
      off
        .map(
          g =>
            `${label(g)}: ${g.clocks_applications_graphics_mhz} MHz vs default ${g.clocks_default_applications_graphics_mhz} MHz`
        )
        .join('; ') +
      '; results will not compare with a baseline taken at default clocks',
    fix: 'reset them: sudo nvidia-smi -rac (or record the clocks with the baseline and keep them fixed)'
  })
}

/** Power limit lowered from the default: the GPU is capped (seed 002 measures under caps deliberately). */
export function checkPowerLimit(gpus: readonly GpuFacts[]): PreflightResult {
  return defaultCheck({
    name: 'power-limit',
    gpus,
    reported: g => g.power_limit_w !== null && g.power_default_limit_w !== null,
    offDefault: g => (g.power_limit_w ?? 0) < (g.power_default_limit_w ?? 0),
    notReported: 'power limits not reported by nvidia-smi',
    atDefault: 'power limit at its default',
    message: off =>
      'power limit below the default on ' +
      off.map(g => `${label(g)}: ${g.power_limit_w} W vs ${g.power_default_limit_w} W`).join('; '),
    fix: 'keep it if the cap is intended (and in the baseline too), else restore it: sudo nvidia-smi -pl <default watts>'
  })
}

/**
 * Container GPU access gives no GPU-memory limit: on a GPU shared with other processes the
 * arms compete for memory and SMs. Isolation needs MIG or MPS (seed 003).
 */
export function checkIsolation(gpus: readonly GpuFacts[], gpuAccess: GpuAccess): PreflightResult {
  const how = gpuAccess === 'gpus' ? '--gpus' : gpuAccess === 'cdi' ? 'CDI' : 'device nodes'
  const shared = gpus.filter(
    g => (g.compute_processes?.length ?? 0) > 0 && !/^enabled$/i.test(g.mig_mode ?? '')
  )
  if (shared.length > 0) {
    return {
      name: 'gpu-isolation',
      status: 'warn',
      message:
        `${shared.map(g => `${label(g)} already runs ${g.compute_processes?.length} other compute process(es)`).join('; ')}; ` +
        `GPU access via ${how} sets no GPU-memory limit, so the measurement shares memory and SMs with them`,
      fix: 'run on an idle GPU, or isolate with MIG (a MIG instance per job) or MPS with memory limits',
      details: { gpus: shared.map(g => ({ index: g.index, processes: g.compute_processes })) }
    }
  }
  if (gpus.some(g => g.compute_processes === null)) {
    return {
      name: 'gpu-isolation',
      status: 'skip',
      message: `could not list other compute processes; note that GPU access via ${how} sets no GPU-memory limit`,
      fix: null
    }
  }
  return {
    name: 'gpu-isolation',
    status: 'pass',
    message: `no other compute process on the GPU(s); GPU access via ${how} sets no GPU-memory limit, so keep the GPU to this job (MIG/MPS isolate shared GPUs)`,
    fix: null
  }
}
