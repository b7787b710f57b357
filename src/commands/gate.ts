/**
 * `gpu-overhead gate`: can the host driver run the image's CUDA? The evaluation (gate-evaluate.ts), rendered
 * as text or JSON (gate-report.ts), and the exit code.
 */
import { exitCodeFor } from '../gate/index.js'
import { evaluateGate, type GateCommandOptions } from './gate-evaluate.js'
import { gateJson, gateText } from './gate-report.js'

/**
 * `gate` command logic: the driver gate and the image's NVIDIA_REQUIRE_* rows, exit code from the worst
 * (gate/ maps it, as for the check): 0 pass/warn, 1 fail. Bad input throws InputError and a missing
 * nvidia-smi/image throws EnvironmentError (both exit 2 through exitCodeOf).
 */
export async function gateCommand(opts: GateCommandOptions): Promise<{ text: string; exitCode: number }> {
  const ev = await evaluateGate(opts)
  const exitCode = exitCodeFor(ev.status)
  if (ev.result === null) throw new Error('gate: the driver gate row carries no details')
  const view = { ...ev, result: ev.result, exitCode }
  return { exitCode, text: opts.format === 'json' ? gateJson(view) : gateText(view) }
}
