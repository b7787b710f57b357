/**
 * The check's clean-up lists its containers again after each removal: one the engine created after the first
 * list (its client was killed mid-create) is removed too, and what a slow engine has not removed after the last
 * round is returned, for the check to name (check-runs.ts warns with the ids and the command).
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { removeLabelled } from '../../src/tools/docker.js'

/**
 * A fake engine whose containers are lines of a file: `ps -aq` prints them, `rm -f ID…` removes at most `perRm`
 * of the named ones, and `late` more appear after the first list (created while the clean-up ran).
 */
function fakeEngine(
  initial: string[],
  opts: { perRm: number; late?: string[] }
): { dir: string; calls: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-cleanup-'))
  const state = path.join(dir, 'containers')
  const calls = path.join(dir, 'calls')
  const late = path.join(dir, 'late')
  fs.writeFileSync(state, initial.map(i => `${i}\n`).join(''))
  fs.writeFileSync(late, (opts.late ?? []).map(i => `${i}\n`).join(''))
  fs.writeFileSync(
    path.join(dir, 'docker'),
    [
      '#!/bin/sh',
      `echo "$*" >> '${calls}'`,
      'case "$1" in',
      `  ps) cat '${state}'; cat '${late}' >> '${state}'; : > '${late}' ;;`,
      `  rm) shift 2; n=0; for id in "$@"; do [ $n -ge ${opts.perRm} ] && break; grep -vx "$id" '${state}' > '${state}.new'; mv '${state}.new' '${state}'; n=$((n+1)); done ;;`,
      'esac'
    ].join('\n') + '\n',
    { mode: 0o755 }
  )
  return { dir, calls }
}

describe('removeLabelled', () => {
  let savedPath: string | undefined
  beforeEach(() => (savedPath = process.env.PATH))
  afterEach(() => (process.env.PATH = savedPath))

  it('removes a container that appeared after the first list', async () => {
    const e = fakeEngine(['aaa'], { perRm: 10, late: ['bbb'] })
    process.env.PATH = `${e.dir}:${savedPath ?? ''}`
    expect(await removeLabelled('docker', 'check-1')).toEqual([])
    const calls = fs.readFileSync(e.calls, 'utf8').trim().split('\n')
    expect(calls.filter(c => c.startsWith('rm -f'))).toEqual(['rm -f aaa', 'rm -f bbb'])
    expect(calls[0]).toBe('ps -aq --filter label=gpu-overhead-action.check=check-1')
  })

  it('returns what a slow engine has not removed after its rounds (was: nothing said, containers left)', async () => {
    const e = fakeEngine(['a1', 'a2', 'a3', 'a4', 'a5'], { perRm: 1 })
    process.env.PATH = `${e.dir}:${savedPath ?? ''}`
    expect(await removeLabelled('docker', 'check-2')).toEqual(['a4', 'a5'])
  })

  it('lists once when nothing is there', async () => {
    const e = fakeEngine([], { perRm: 1 })
    process.env.PATH = `${e.dir}:${savedPath ?? ''}`
    expect(await removeLabelled('docker', 'check-3')).toEqual([])
    expect(fs.readFileSync(e.calls, 'utf8').trim().split('\n')).toHaveLength(1)
  })
})
