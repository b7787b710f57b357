/**
 * `docker pause` that runc could not finish ("unable to freeze", a loaded host's transient: it failed a CPU
 * check's turns on a 2-core runner) is tried again; a final error (no freezer) is not. A stand-in `docker` on
 * PATH fails the first calls as runc does and records every call.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { freezeContainer } from '../../src/tools/docker.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'freeze-'))
const savedPath = process.env.PATH
afterAll(() => {
  process.env.PATH = savedPath
  fs.rmSync(dir, { recursive: true, force: true })
})

/** A `docker` that prints `message` and fails its first `failures` calls, then succeeds. */
function standIn(failures: number, message: string): string {
  const calls = path.join(dir, `calls-${failures}-${message.length}`)
  fs.writeFileSync(
    path.join(dir, 'docker'),
    `#!/bin/sh\necho "$@" >> '${calls}'\nn=$(wc -l < '${calls}')\nif [ "$n" -le ${failures} ]; then echo '${message}' >&2; exit 1; fi\nexit 0\n`,
    { mode: 0o755 }
  )
  process.env.PATH = `${dir}:${savedPath ?? ''}`
  return calls
}
const lines = (f: string): string[] => fs.readFileSync(f, 'utf8').trim().split('\n')

const UNABLE =
  'Error response from daemon: Cannot pause container 2984a345: OCI runtime pause failed: unable to freeze: unknown'

it('a pause runc could not finish is tried again, and succeeds', async () => {
  const calls = standIn(2, UNABLE)
  expect(await freezeContainer('docker', 'c1', true)).toBeNull()
  expect(lines(calls)).toEqual(['pause c1', 'pause c1', 'pause c1'])
})

it('three tries at most, then the error says why', async () => {
  const calls = standIn(5, UNABLE)
  expect(await freezeContainer('docker', 'c2', false)).toMatch(/^docker unpause failed: .*unable to freeze/)
  expect(lines(calls)).toHaveLength(3)
})

it('a final error is not tried again', async () => {
  const calls = standIn(5, 'Error response from daemon: no freezer')
  expect(await freezeContainer('docker', 'c3', true)).toBe(
    'docker pause failed: Error response from daemon: no freezer'
  )
  expect(lines(calls)).toEqual(['pause c3'])
})

it('a container already in the state asked for is no failure (was: a second thaw failed the arm)', async () => {
  const calls = standIn(1, 'Error response from daemon: Container d03e9ea16120 is not paused')
  expect(await freezeContainer('docker', 'c4', false)).toBeNull()
  expect(lines(calls)).toEqual(['unpause c4'])
  standIn(1, 'Error response from daemon: Container d03e9ea16120 is already paused')
  expect(await freezeContainer('docker', 'c5', true)).toBeNull()
  // The other way round it is still an error: a pause told "not paused" did not pause.
  standIn(5, 'Error response from daemon: Container d03e9ea16120 is not paused')
  expect(await freezeContainer('docker', 'c6', true)).toMatch(/^docker pause failed: .*is not paused/)
})
