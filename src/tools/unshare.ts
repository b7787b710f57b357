/**
 * util-linux `unshare`: the native arm's user commands run in their own user, PID and mount namespace
 * (docs/security.md, "What a native command can reach"). Measured on Debian 12 (kernel 6.18, util-linux 2.38),
 * as root and as an unprivileged user: a command started this way sees one process in /proc and reads no other
 * process's environment — not the action's INPUT_GITHUB-TOKEN, ACTIONS_RUNTIME_TOKEN or a step's `env:` secret —
 * even after it unmounts its /proc (a process in a child user namespace has no CAP_SYS_PTRACE over the
 * runner's processes, so their environ and memory are refused). Without the user namespace, root in a PID
 * namespace alone could unmount /proc and read the host's again.
 */
import { execCapture } from '../util/exec.js'

export const UNSHARE = 'unshare'

/**
 * Before the command's own argv. `--map-current-user` keeps the runner's uid (root stays 0, mapped to itself);
 * `--kill-child`: when unshare dies (the process-tree kill, a timeout) the namespace's first process gets
 * SIGKILL, and with it every process of the namespace, so nothing the command started outlives it.
 */
export const ISOLATION_ARGS: readonly string[] = [
  '--map-current-user',
  '--pid',
  '--fork',
  '--mount-proc',
  '--kill-child',
  '--'
]

/** The argv of `program args…` run inside its own namespaces. */
export function isolatedArgv(program: string, args: readonly string[]): { command: string; args: string[] } {
  return { command: UNSHARE, args: [...ISOLATION_ARGS, program, ...args] }
}

/** Whether this host lets this user start a command so; `why` is unshare's own line when not. */
export async function probeIsolation(timeoutMs = 15_000): Promise<{ ok: boolean; why: string }> {
  // `true` inside: the namespaces, the uid map and the /proc mount all have to work for it to exit 0.
  const r = await execCapture(UNSHARE, [...ISOLATION_ARGS, 'true'], { timeoutMs })
  if (r.exitCode === 0) return { ok: true, why: '' }
  const line = r.stderr.split('\n').find(l => l.trim() !== '') ?? ''
  if (r.exitCode === 127) return { ok: false, why: 'util-linux unshare is not installed' }
  if (r.timedOut) return { ok: false, why: `unshare did not finish within ${timeoutMs / 1000} s` }
  return { ok: false, why: line.trim().slice(0, 200) || `unshare exited ${r.exitCode}` }
}
