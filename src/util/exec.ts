import * as exec from '@actions/exec'

export interface ExecResult {
  exitCode: number
  stdout: string
  stderr: string
}

/**
 * Run a program with an argument array (never a shell string) and capture its output.
 * A missing program resolves with exitCode 127 instead of throwing, so callers can say what to install.
 */
export async function execCapture(
  tool: string,
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string; silent?: boolean } = {}
): Promise<ExecResult> {
  let stdout = ''
  let stderr = ''
  try {
    const exitCode = await exec.exec(tool, [...args], {
      ignoreReturnCode: true,
      silent: options.silent ?? true,
      input: options.input === undefined ? undefined : Buffer.from(options.input),
      env: options.env,
      cwd: options.cwd,
      listeners: {
        stdout: (data: Buffer) => (stdout += data.toString()),
        stderr: (data: Buffer) => (stderr += data.toString())
      }
    })
    return { exitCode, stdout, stderr }
  } catch (error) {
    // @actions/exec throws when the tool is not found on PATH.
    return { exitCode: 127, stdout, stderr: stderr + String(error) }
  }
}
