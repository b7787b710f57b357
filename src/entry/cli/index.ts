/**
 * The CLI: `gpu-overhead run | analyze | gate | io-check | aggregate | trend`. Exit codes: 0 pass (warnings allowed),
 * 1 check failed, 2 bad input or environment error — always with one line saying what and how to fix.
 */
import './node-guard.js'
import { CommanderError } from 'commander'
import { exitCodeOf, ExitCode, getErrorMessage } from '../../util/errors.js'
import { flushAndExit } from '../../util/exit.js'
import { writeErr } from '../../util/log.js'
import { registerEnvSecrets } from '../../util/secrets.js'
import { useSettingNames } from '../../util/setting-name.js'
import { buildProgram } from './program.js'

export { buildProgram } from './program.js'
export { ACTION_ONLY, INPUT_HELP, runFlagHelp } from './help.js'

export async function main(argv: string[]): Promise<number> {
  // Secret-named variables' values are masked in everything the CLI writes (util/secrets.ts).
  registerEnvSecrets(process.env)
  // Every message that names a setting names the flag (`--device cpu`), not the action's input.
  useSettingNames('cli')
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.Pass
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? ExitCode.Pass : ExitCode.UsageOrEnvironment
    }
    writeErr(`gpu-overhead: ${getErrorMessage(error)}`)
    return exitCodeOf(error)
  }
}

// Only when run as a program (not when imported by tests).
if (process.argv[1] && /(?:^|[\\/])(cli\.(?:js|ts)|gpu-overhead)$/.test(process.argv[1])) {
  main(process.argv).then(
    code => flushAndExit(code),
    (error: unknown) => {
      writeErr(`gpu-overhead: ${getErrorMessage(error)}`)
      return flushAndExit(exitCodeOf(error))
    }
  )
}
