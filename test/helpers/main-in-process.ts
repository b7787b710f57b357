/**
 * The CLI's `main` in this process, as the entry tests call it: stderr (the progress lines) captured instead of
 * printed, and `process.exitCode` left as it was found, whatever `main` set.
 */
import { main } from '../../src/entry/cli/index.js'

export async function mainCapturingStderr(
  args: readonly string[]
): Promise<{ code: number; stderr: string }> {
  const err: string[] = []
  const realWrite = process.stderr.write.bind(process.stderr)
  process.stderr.write = (chunk: string | Uint8Array): boolean => {
    err.push(String(chunk))
    return true
  }
  try {
    const code = await main(['node', 'gpu-overhead', ...args])
    return { code, stderr: err.join('') }
  } finally {
    process.stderr.write = realWrite
    process.exitCode = undefined
  }
}
