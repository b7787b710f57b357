/** What the runner keeps of the `stack` events (workloads/_stack.py): per process, and per arm for the explainer. */

/** The stack one measured process recorded. */
export interface StackRecord {
  environment: string
  workload: string
  run: number
  facts: Record<string, unknown>
}

/** The stack one arm ran one workload on, as its processes recorded it (`stack` event minus `event`). */
export interface ArmStack {
  environment: string
  workload: string
  /** Measured processes whose stack was recorded. */
  processes: number
  facts: Record<string, unknown>
  /** Flattened keys whose value differed between processes of this arm (e.g. a JIT cache filling up). */
  varies: string[]
}

