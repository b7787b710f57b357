/**
 * Issue 53, C22-09: a container paused by turns (the other arm has the turn) is left behind when the main step
 * is killed with SIGKILL (a cancelled job, the runner's timeout): nothing of the main step runs after it. The
 * post step (post-if: always()) removes it by the check's label, which the main step recorded in GITHUB_STATE
 * before the first container started. Through the action entry, with a real container on the local engine.
 */
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { ensurePythonImage } from '../helpers/docker-image.js'
import { LABEL, waitFor } from './helpers.js'

const ENTRY = path.resolve('src/entry/action/index.ts')
const TSX = path.resolve('node_modules/tsx/dist/loader.mjs')

let image = ''
const made: string[] = []
let checkId = ''
beforeAll(async () => {
  image = await ensurePythonImage()
}, 600_000)
afterAll(() => {
  if (checkId) removeLabelled(checkId)
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})

function removeLabelled(id: string): void {
  const ids = containers(id)
  if (ids.length) spawnSync('docker', ['rm', '-f', ...ids], { timeout: 60_000 })
}

function containers(id: string, status?: string): string[] {
  const filters = ['--filter', `label=${LABEL}=${id}`, ...(status ? ['--filter', `status=${status}`] : [])]
  const r = spawnSync('docker', ['ps', '-aq', ...filters], { encoding: 'utf8', timeout: 60_000 })
  // A listing that failed (a busy engine on a loaded CI machine) is not an empty one.
  if (r.status !== 0) throw new Error(`docker ps failed (${String(r.status)}): ${r.stderr}`)
  return r.stdout.split('\n').filter(Boolean)
}

/** Lists, retrying for a few seconds where the engine answers with an error, and never an error for none. */
async function containersSettled(id: string): Promise<string[]> {
  for (let i = 0; ; i++) {
    try {
      return containers(id)
    } catch (e) {
      if (i >= 20) throw e
      await new Promise(r => setTimeout(r, 250))
    }
  }
}

/** GITHUB_STATE as @actions/core writes it (`name<<delimiter`, value, delimiter): the STATE_* the post step gets. */
function stateEnv(file: string): Record<string, string> {
  const env: Record<string, string> = {}
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i] ?? '')
    if (!m) continue
    const value: string[] = []
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i] ?? '')
    env[`STATE_${m[1]}`] = value.join('\n')
  }
  return env
}

function start(env: Record<string, string>): { child: ReturnType<typeof spawn>; done: Promise<string> } {
  const child = spawn(process.execPath, ['--import', TSX, ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()))
  return { child, done: new Promise(resolve => child.on('close', () => resolve(out))) }
}

test('the post step removes the container that a SIGKILL of the main step left paused by turns', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-post-'))
  made.push(root)
  const ws = path.join(root, 'ws')
  fs.mkdirSync(ws)
  const files: Record<string, string> = {}
  for (const v of ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY']) {
    files[v] = path.join(root, v.toLowerCase())
    fs.writeFileSync(files[v], '')
  }
  fs.writeFileSync(path.join(root, 'event.json'), '{}')
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: root,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: ws,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: path.join(root, 'event.json'),
    ...files
  }
  const inputs: Record<string, string> = {
    device: 'cpu',
    arms: 'native,container',
    image,
    workloads: 'llm',
    'llm-preset': 'tiny',
    turns: 'true',
    python: '/usr/bin/python3',
    runs: '3',
    'max-runs': '3',
    'github-token': '',
    comment: 'never',
    'check-run': '',
    'baseline-branch': ''
  }
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v
  const main = start(env)
  let out = ''
  void main.done.then(o => (out = o))
  await waitFor(
    'the check id in GITHUB_STATE',
    () => (checkId = stateEnv(files.GITHUB_STATE ?? '')['STATE_check-id'] ?? '') !== '' || out !== '',
    180_000
  )
  expect(checkId).not.toBe('')
  // The main step is stopped (SIGSTOP) before each look, so it cannot thaw the container between the look and
  // the SIGKILL: a container seen paused stays paused (one thawed for its turn would finish, and --rm remove it).
  await waitFor(
    'a container paused by turns',
    () => {
      main.child.kill('SIGSTOP')
      if (containers(checkId, 'paused').length > 0) return true
      main.child.kill('SIGCONT')
      return false
    },
    300_000
  )
  main.child.kill('SIGKILL')
  const mainOut = await main.done
  const left = await containersSettled(checkId)
  // Where none is left, say what the main step had done (its log) and what the engine shows for the check.
  if (left.length === 0) {
    const all = spawnSync('docker', ['ps', '-a', '--filter', `label=${LABEL}=${checkId}`], {
      encoding: 'utf8'
    })
    throw new Error(
      `no container of check ${checkId} left after the SIGKILL; docker ps -a: ${all.stdout}${all.stderr}\nmain step: ${mainOut.slice(-3000)}`
    )
  }

  const post = start({ ...env, ...stateEnv(files.GITHUB_STATE ?? '') })
  const postOut = await post.done
  expect(postOut).not.toMatch(/could not remove/)
  expect(await containersSettled(checkId)).toEqual([])
}, 600_000)
