/**
 * The action's own run() in this process, as the runner starts it: INPUT_* variables, the runner's files, an
 * event payload, a workspace. What it printed, its outputs, its job summary and whether it failed come back.
 */
import { jest } from '@jest/globals'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface ActionResult {
  outputs: string
  summary: string
  log: string
  failed: boolean
}

export interface ActionRun {
  workspace: string
  inputs: Record<string, string>
  /** More runner variables (GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_REF, …); `undefined` removes one. */
  env?: Record<string, string | undefined>
  event?: { name: string; payload: unknown }
}

/** The inputs every such test starts from: CPU, both arms native, no GitHub side unless a test asks. */
export const BASE_INPUTS: Record<string, string> = {
  device: 'cpu',
  arms: 'native,native',
  python: '/usr/bin/python3',
  runs: '2',
  'max-runs': '2',
  'github-token': '',
  comment: 'never',
  'check-run': '',
  'baseline-branch': ''
}

export async function runAction(a: ActionRun): Promise<ActionResult> {
  const runner = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-sec-runner-'))
  const saved = { ...process.env }
  const files = { GITHUB_OUTPUT: 'out', GITHUB_STATE: 'state', GITHUB_STEP_SUMMARY: 'summary' }
  for (const [v, f] of Object.entries(files)) {
    const p = path.join(runner, f)
    writeFileSync(p, '')
    process.env[v] = p
  }
  const eventPath = path.join(runner, 'event.json')
  const event = a.event ?? { name: 'push', payload: {} }
  writeFileSync(eventPath, JSON.stringify(event.payload))
  for (const k of Object.keys(process.env)) if (k.startsWith('INPUT_')) delete process.env[k]
  delete process.env.GITHUB_REPOSITORY
  Object.assign(process.env, {
    GITHUB_WORKSPACE: a.workspace,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath
  })
  for (const [k, v] of Object.entries(a.env ?? {}))
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  for (const [k, v] of Object.entries({ ...BASE_INPUTS, ...a.inputs }))
    process.env[`INPUT_${k.replace(/ /g, '_').toUpperCase()}`] = v
  try {
    return await runActionHere(runner, saved)
  } finally {
    rmSync(runner, { recursive: true, force: true })
  }
}

/**
 * The action's `run()` in this process, with the environment the caller set up (runner files under `runner`):
 * stdout captured, then process.env put back to `saved` and the exit code cleared, whatever happened.
 */
export async function runActionHere(runner: string, saved: NodeJS.ProcessEnv): Promise<ActionResult> {
  const written: string[] = []
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk))
    return true
  })
  process.exitCode = undefined
  try {
    const { run } = await import('../../src/entry/action/main.js')
    await run()
    const summary = path.join(runner, 'summary')
    return {
      outputs: readFileSync(path.join(runner, 'out'), 'utf8'),
      summary: existsSync(summary) ? readFileSync(summary, 'utf8') : '',
      log: written.join(''),
      failed: process.exitCode === 1
    }
  } finally {
    spy.mockRestore()
    process.env = saved
    process.exitCode = undefined
  }
}
