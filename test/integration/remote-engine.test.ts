/**
 * Issue 54, remote engines: the action entry with every default (on the CPU) against a Docker engine that shares
 * only the runner's work folder, as ARC's dind sidecar does. The engine is a second, real dockerd reached through
 * DOCKER_HOST; it runs in mount and network namespaces of its own where `/tmp` is a fresh tmpfs, the work folder
 * is bound back at its own path, and the tool's own workloads folder is hidden. Whatever the check mounts from
 * anywhere but the work folder (os.tmpdir(), the install folder) is an empty folder in that engine, and the
 * container arm fails. Needs root, dockerd and unshare (CI has them: .ci/run installs docker.io).
 */
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { runActionHere } from '../hardening/action-env.js'
import { runnerInputEnv } from '../helpers/action-inputs.js'
import { HOST_PYTHON } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'
import { describeWhere } from '../helpers/requires.js'
import type { CheckSummary } from '../../src/types/index.js'

const canRunDockerd =
  process.getuid?.() === 0 &&
  spawnSync('dockerd', ['--version'], { encoding: 'utf8' }).status === 0 &&
  spawnSync('unshare', ['--net', '--mount', 'true'], { encoding: 'utf8', timeout: 10_000 }).status === 0
const describeDockerd = describeWhere(
  canRunDockerd,
  'the remote-engine test',
  'root, dockerd (docker.io) and unshare --net --mount (util-linux)'
)

describeDockerd('an engine that shares only the work folder (ARC dind), through the action entry', () => {
  // The engine's own files (data root, socket) outside /tmp, so the host reaches its socket.
  const base = fs.mkdtempSync('/var/tmp/gpu-overhead-dind-')
  const host = `unix://${path.join(base, 'docker.sock')}`
  // The runner's work folder: under the host's /tmp on purpose, which the engine sees only through its bind.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-dind-work-'))
  const workloads = path.resolve('workloads')
  let daemon: ReturnType<typeof spawn> | null = null
  let tag = ''

  beforeAll(async () => {
    tag = await ensurePythonImage()
    const log = fs.openSync(path.join(base, 'dockerd.log'), 'w')
    const share = path.join(base, 'share')
    fs.mkdirSync(share)
    const q = (s: string): string => `'${s}'`
    // In the engine's namespace: the work folder kept aside, a private /tmp, the work folder back at its own
    // path, the tool's workloads folder hidden; then the daemon (its bridge and iptables in its own netns).
    const script = [
      'set -e',
      `mount --bind ${q(work)} ${q(share)}`,
      'mount -t tmpfs -o mode=1777 tmpfs /tmp',
      `mkdir -p ${q(work)}`,
      `mount --bind ${q(share)} ${q(work)}`,
      `mount -t tmpfs -o ro tmpfs ${q(workloads)}`,
      `exec dockerd --host ${q(host)} --data-root ${q(path.join(base, 'root'))} --exec-root ${q(path.join(base, 'exec'))} ` +
        `--pidfile ${q(path.join(base, 'docker.pid'))} --bridge none --iptables=false --ip-masq=false`
    ].join('\n')
    daemon = spawn('unshare', ['--net', '--mount', '--propagation', 'private', '--', 'sh', '-c', script], {
      stdio: ['ignore', log, log]
    })
    const deadline = Date.now() + 60_000
    while (spawnSync('docker', ['-H', host, 'version'], { timeout: 10_000 }).status !== 0) {
      if (Date.now() > deadline || daemon.exitCode !== null)
        throw new Error(
          `second dockerd did not start: ${fs.readFileSync(path.join(base, 'dockerd.log'), 'utf8')}`
        )
      await new Promise(r => setTimeout(r, 500))
    }
    const tar = path.join(base, 'image.tar')
    expect(spawnSync('docker', ['save', '-o', tar, tag], { timeout: 120_000 }).status).toBe(0)
    expect(spawnSync('docker', ['-H', host, 'load', '-i', tar], { timeout: 120_000 }).status).toBe(0)
    fs.rmSync(tar)
    // The engine's /tmp is not the host's: a file the host writes there is not seen by a container.
    const marker = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-dind-probe-'))
    const seen = spawnSync(
      'docker',
      [
        '-H',
        host,
        'run',
        '--rm',
        '--network',
        'none',
        '-v',
        `${marker}:/m:ro`,
        tag,
        'python3',
        '-c',
        'import os; print(len(os.listdir("/m")))'
      ],
      { encoding: 'utf8', timeout: 60_000 }
    )
    fs.writeFileSync(path.join(marker, 'x'), '')
    const after = spawnSync(
      'docker',
      [
        '-H',
        host,
        'run',
        '--rm',
        '--network',
        'none',
        '-v',
        `${marker}:/m:ro`,
        tag,
        'python3',
        '-c',
        'import os; print(len(os.listdir("/m")))'
      ],
      { encoding: 'utf8', timeout: 60_000 }
    )
    fs.rmSync(marker, { recursive: true, force: true })
    expect([seen.stdout.trim(), after.stdout.trim()]).toEqual(['0', '0'])
  }, 600_000)

  afterAll(async () => {
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise(r => daemon!.once('exit', r))
      daemon.kill('SIGTERM')
      await Promise.race([exited, new Promise(r => setTimeout(r, 30_000))])
      if (daemon.exitCode === null) daemon.kill('SIGKILL')
    }
    for (const d of [base, work]) fs.rmSync(d, { recursive: true, force: true })
  }, 60_000)

  it('native vs container with every default: both arms measured, nothing mounted from outside the work folder', async () => {
    const ws = path.join(work, 'workspace')
    const runnerTemp = path.join(work, '_temp')
    const runner = path.join(work, '_runner')
    for (const d of [ws, runnerTemp, runner]) fs.mkdirSync(d)
    const saved = { ...process.env }
    for (const k of Object.keys(process.env)) if (k.startsWith('INPUT_')) delete process.env[k]
    for (const [v, f] of Object.entries({
      GITHUB_OUTPUT: 'out',
      GITHUB_STATE: 'state',
      GITHUB_STEP_SUMMARY: 'summary'
    })) {
      fs.writeFileSync(path.join(runner, f), '')
      process.env[v] = path.join(runner, f)
    }
    delete process.env.GITHUB_REPOSITORY
    delete process.env.GITHUB_EVENT_PATH
    Object.assign(process.env, {
      GITHUB_WORKSPACE: ws,
      GITHUB_EVENT_NAME: 'push',
      RUNNER_TEMP: runnerTemp,
      DOCKER_HOST: host,
      ...runnerInputEnv({
        image: tag,
        device: 'cpu',
        python: HOST_PYTHON,
        comment: 'never',
        'check-run': '',
        'baseline-branch': ''
      })
    })
    const r = await runActionHere(runner, saved)
    const s = JSON.parse(
      fs.readFileSync(path.join(ws, 'gpu-overhead-results', 'summary.json'), 'utf8')
    ) as CheckSummary
    const failed = s.runs.filter(x => x.status !== 'ok')
    expect({ failed, log: failed.length ? r.log.slice(-4000) : '' }).toEqual({ failed: [], log: '' })
    expect(new Set(s.runs.map(x => x.environment))).toEqual(new Set(['native', 'container']))
    expect(new Set(s.runs.filter(x => x.environment === 'container').map(x => x.workload))).toEqual(
      new Set(['matmul', 'llm', 'io'])
    )
    expect(r.outputs).toMatch(/verdict<<\S+\n(pass|inconclusive|regression)\n/)
    // The report names the engine the container arm ran on.
    expect(s.preflight.find(p => p.name === 'launcher:docker')?.message).toBe(
      `docker run on the engine at ${host}`
    )
    // The check's own folders under RUNNER_TEMP are gone at its end.
    expect(fs.readdirSync(runnerTemp)).toEqual([])
  }, 900_000)
})
