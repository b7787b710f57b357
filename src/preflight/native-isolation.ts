/**
 * Whether the native arm's user commands can run in their own namespaces (tools/unshare.ts), and what it means
 * where they cannot. A command is the pull request's code; without the namespaces it runs as the runner's user
 * beside the action's own process and can read that process's environment through /proc/<pid>/environ: the
 * token input, ACTIONS_RUNTIME_TOKEN, any secret the workflow put in the step's `env:` (docs/security.md).
 */
import type { Config } from '../config/index.js'
import { probeIsolation } from '../tools/unshare.js'
import type { PreflightResult } from '../types/index.js'
import { isSecretName } from '../util/secret-names.js'

export const NATIVE_ISOLATION_CHECK = 'native-isolation'

/** Every Actions step of a JavaScript action has it; it reaches this run's artifacts and cache only. */
const RUNNER_OWN = new Set(['ACTIONS_RUNTIME_TOKEN'])

export const ISOLATION_FIX =
  "let the runner's user create user namespaces (Ubuntu 23.10+ restricts them: an AppArmor profile that allows " +
  'userns for the runner, or sysctl kernel.apparmor_restrict_unprivileged_userns=0), run the runner as root, or ' +
  "measure in a step that holds nothing worth reading — github-token: '' and no secrets in its env: — and " +
  'publish from a later job (docs/security.md, "What a native command can reach")'

/** Whether the check starts any user command natively. */
export function runsNativeCommands(config: Config): boolean {
  return (
    config.arms.some(a => a.kind === 'native') && config.definitions.some(d => d.start.kind === 'command')
  )
}

/** The names of the secret-shaped, non-empty variables of this process's environment (values never). */
export function readableSecrets(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env)
    .filter(k => env[k] && isSecretName(k) && !RUNNER_OWN.has(k))
    .sort()
}

export interface NativeIsolation {
  row: PreflightResult
  isolate: boolean
}

/**
 * Isolated where the host allows it (pass). Where it does not: in Actions a step whose environment holds a
 * token or secret fails before anything runs (the command could read it); otherwise a warning says the
 * commands run unisolated, as the runner's user.
 */
export async function nativeIsolation(
  env: NodeJS.ProcessEnv = process.env,
  probe: () => Promise<{ ok: boolean; why: string }> = probeIsolation
): Promise<NativeIsolation> {
  const p = await probe()
  if (p.ok)
    return {
      isolate: true,
      row: {
        name: NATIVE_ISOLATION_CHECK,
        status: 'pass',
        message:
          "native commands run in their own user, PID and mount namespaces: they see only their own processes and cannot read the action's environment",
        fix: null
      }
    }
  const secrets = readableSecrets(env)
  const inActions = env.GITHUB_ACTIONS === 'true'
  const what = secrets.length
    ? `this step's ${secrets.slice(0, 8).join(', ')}${secrets.length > 8 ? ', …' : ''}`
    : "this step's environment"
  return {
    isolate: false,
    row: {
      name: NATIVE_ISOLATION_CHECK,
      status: inActions && secrets.length ? 'fail' : 'warn',
      message: `native commands cannot be isolated here (${p.why}): a command would run as the runner's user and could read ${what} from the action's process through /proc`,
      fix: ISOLATION_FIX,
      details: { secrets }
    }
  }
}
