/**
 * The CLI's `main` in this process, as the entry tests call it: what it prints on stdout (the report, the
 * verdict line) and on stderr (the progress lines) captured instead of printed, run from `cwd` where given; the
 * process is left as it was found, whatever `main` did: both streams, the working folder, `process.exitCode` and
 * the secrets it registered for masking.
 */
import { main } from '../../src/entry/cli/index.js'
import { clearSecrets } from '../../src/util/secrets.js'

export interface MainResult {
  code: number
  stdout: string
  stderr: string
}

export async function mainInProcess(
  args: readonly string[],
  opts: { cwd?: string } = {}
): Promise<MainResult> {
  const out: string[] = []
  const err: string[] = []
  const realOut = process.stdout.write.bind(process.stdout)
  const realErr = process.stderr.write.bind(process.stderr)
  const cwd = process.cwd()
  process.stdout.write = (chunk: string | Uint8Array): boolean => {
    out.push(String(chunk))
    return true
  }
  process.stderr.write = (chunk: string | Uint8Array): boolean => {
    err.push(String(chunk))
    return true
  }
  process.exitCode = undefined
  try {
    if (opts.cwd !== undefined) process.chdir(opts.cwd)
    const code = await main(['node', 'gpu-overhead', ...args])
    return { code, stdout: out.join(''), stderr: err.join('') }
  } finally {
    process.chdir(cwd)
    process.stdout.write = realOut
    process.stderr.write = realErr
    process.exitCode = undefined
    clearSecrets()
  }
}
