/**
 * The CLI's `main` in this process, as the entry tests call it: stderr (the progress lines) captured instead of
 * printed, run from `cwd` where given; the process is left as it was found, whatever `main` did: stderr, the
 * working folder, `process.exitCode` and the secrets it registered for masking.
 */
import { main } from '../../src/entry/cli/index.js'
import { clearSecrets } from '../../src/util/secrets.js'

export async function mainCapturingStderr(
  args: readonly string[],
  opts: { cwd?: string } = {}
): Promise<{ code: number; stderr: string }> {
  const err: string[] = []
  const realWrite = process.stderr.write.bind(process.stderr)
  const cwd = process.cwd()
  process.stderr.write = (chunk: string | Uint8Array): boolean => {
    err.push(String(chunk))
    return true
  }
  try {
    if (opts.cwd !== undefined) process.chdir(opts.cwd)
    const code = await main(['node', 'gpu-overhead', ...args])
    return { code, stderr: err.join('') }
  } finally {
    process.chdir(cwd)
    process.stderr.write = realWrite
    process.exitCode = undefined
    clearSecrets()
  }
}
