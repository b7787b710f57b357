/**
 * A Docker daemon that never answers (issue 29, class 7): every engine call is bounded, the check fails
 * within 2 minutes with one line, and no 3,600 s pull is started after an inspect that hung.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { inspectImage } from '../../src/preflight/image.js'
import {
  ENGINE_CALL_TIMEOUT_MS,
  dockerRootDir,
  engineVersion,
  forgetHungEngines
} from '../../src/tools/docker.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hung-engine-'))
const calls = path.join(dir, 'calls')
// A `docker` client whose daemon never answers: it logs its argv and waits forever (SIGTERM ignored).
fs.writeFileSync(
  path.join(dir, 'docker'),
  `#!/bin/sh\necho "$*" >> '${calls}'\ntrap '' TERM\nwhile :; do sleep 1; done\n`,
  { mode: 0o755 }
)

let savedPath: string | undefined
beforeAll(() => {
  savedPath = process.env.PATH
  process.env.PATH = `${dir}:${savedPath ?? ''}`
})
afterAll(() => {
  process.env.PATH = savedPath
  forgetHungEngines()
  fs.rmSync(dir, { recursive: true, force: true })
})

test('a hung daemon fails the image check within 2 minutes with one line; no pull, and later calls fail at once', async () => {
  const t0 = Date.now()
  const error = await inspectImage('ubuntu:24.04', 'docker').then(
    () => null,
    (e: Error) => e
  )
  const took = Date.now() - t0
  expect(error?.message).toMatch(/did not answer within 45 s; it looks hung/)
  expect(error?.message).not.toContain('\n')
  expect(took).toBeLessThan(120_000)
  expect(took).toBeGreaterThanOrEqual(ENGINE_CALL_TIMEOUT_MS)
  const argv = fs.readFileSync(calls, 'utf8').trim().split('\n')
  expect(argv).toEqual(['image inspect ubuntu:24.04'])
  // The version and data-root questions of the same check do not wait again.
  const t1 = Date.now()
  expect(await engineVersion('docker')).toBeNull()
  expect(await dockerRootDir('docker')).toBeNull()
  expect(Date.now() - t1).toBeLessThan(1000)
}, 120_000)
