/**
 * Co-tenants: the other processes that shared what a workload measured — other compute processes on
 * its GPU (nvidia-smi, host side) and, in a container arm, the container's other processes (the
 * workload's `peers` event). Recorded per measured process, merged per arm for the explainer.
 */

/** Where a list of co-tenants comes from. */
export type CotenantScope = 'gpu' | 'pid-namespace'

export interface CotenantProcess {
  pid: number
  /** Short process name (comm, or nvidia-smi's process name), clipped. */
  name: string
  /** Command line, clipped and with credentials masked; null when it could not be read. */
  cmdline: string | null
  /** CPU used over the measured region, % of one core (pid-namespace only). */
  cpu_pct: number | null
  /** Device memory the process holds (gpu only). */
  gpu_mem_mib: number | null
  /** Holds an NVIDIA device open (pid-namespace: read from /proc/PID/fd; gpu: always). */
  uses_gpu: boolean | null
}

export interface CotenantList {
  scope: CotenantScope
  /** Why the list could not be read (no GPU, no nvidia-smi, /proc unreadable); null when it was. */
  unavailable: string | null
  /** How many other processes there were (the list may be clipped). */
  total: number
  processes: CotenantProcess[]
}
