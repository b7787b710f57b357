/**
 * Shared by the hardening tests: run the built CLI (dist/cli.js) or action (dist/index.js) like a user
 * or the Actions runner does, read back what a check left on disk, and build fault-injecting workloads.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { readResults } from '../../src/results/store.js'
import type { CheckSummary, RunRecord, SampleRecord } from '../../src/types/index.js'

export const CLI = path.resolve('dist/cli.js')
export const ACTION = path.resolve('dist/index.js')
export const WORKLOADS = path.resolve('workloads')
export const LABEL = 'gpu-overhead-action.check'
export const ROLE_LABEL = 'gpu-overhead-action.role'

/** The smallest real check: matmul 64² on the CPU, two runs per arm, no warm-up. */
export const FAST = [
  '--device',
  'cpu',
  '--workloads',
  'matmul',
  '--runs',
  '2',
  '--warmup-runs',
  '0',
  '--python',
  '/usr/bin/python3',
  '--matmul-size',
  '64'
]

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export function workspace(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `hardening-${prefix}-`))
}

/** The CLI, synchronously (nothing else in the test process needs to run meanwhile). */
export function cli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 120_000
): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: 'utf8', timeout: timeoutMs })
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr }
}

export interface Running {
  child: ChildProcess
  /** Everything printed so far. */
  output(): { stdout: string; stderr: string }
  done: Promise<CliResult>
}

/** A node program in the background (for signals, or when the test process must answer HTTP meanwhile). */
export function startNode(
  script: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env
): Running {
  const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const done = new Promise<CliResult>(resolve =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  )
  return { child, output: () => ({ stdout, stderr }), done }
}

export async function waitFor(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(r => setTimeout(r, 50))
  }
}

/** The one error line the CLI prints on exit 2 (`gpu-overhead: …`); fails on a stack trace. */
export function errorLine(r: CliResult): string {
  expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)
  const lines = r.stderr.split('\n').filter(l => l.startsWith('gpu-overhead: '))
  expect(lines).toHaveLength(1)
  return lines[0] ?? ''
}

export function readSummary(out: string): CheckSummary {
  return JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as CheckSummary
}

export function readRuns(out: string): RunRecord[] {
  return fs
    .readFileSync(path.join(out, 'runs.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as RunRecord)
}

export function readSamples(out: string): SampleRecord[] {
  return readResults(path.join(out, 'results.jsonl'))
}

/** The check left a report marked incomplete: summary.json complete=false and report.md says INCOMPLETE. */
export function expectIncomplete(out: string, reason?: RegExp): CheckSummary {
  const summary = readSummary(out)
  expect(summary.complete).toBe(false)
  expect(summary.verdict).not.toBe('pass')
  if (reason) expect(summary.incomplete_reason).toMatch(reason)
  expect(fs.readFileSync(path.join(out, 'report.md'), 'utf8')).toMatch(/\*\*INCOMPLETE\*\*/)
  return summary
}

export interface Progress {
  workload: string
  environment: string
  run: number
  status: string
  samples: number
}

/** The CLI's progress lines: `[2/4] matmul container run 1: ok in 0.4 s, 40 samples — ETA 1s`. */
export function progress(stderr: string): Progress[] {
  const out: Progress[] = []
  const re = /^\[\d+\/\d+\] (\S+) (\S+) run (\d+): (\w+) in [\d.]+ s(?:, (\d+) samples)?/gm
  for (const m of stderr.matchAll(re))
    out.push({
      workload: m[1]!,
      environment: m[2]!,
      run: Number(m[3]),
      status: m[4]!,
      samples: Number(m[5] ?? 0)
    })
  return out
}

/**
 * Every sample of every run reported `ok` before the fault is in results.jsonl (steady records per run
 * equal the count the progress line printed). Returns how many measured runs were kept.
 */
export function expectKeptBeforeFault(
  out: string,
  stderr: string,
  opts: { exceptLast?: boolean } = {}
): number {
  const ok = progress(stderr).filter(p => p.status === 'ok')
  if (opts.exceptLast) ok.pop()
  expect(ok.length).toBeGreaterThan(0)
  // The progress line counts every sample event of the run (steady, derived, info); startup ones are separate.
  const samples = readSamples(out).filter(s => s.scope !== 'startup')
  for (const p of ok) {
    const kept = samples.filter(
      s => s.workload === p.workload && s.environment === p.environment && s.run === p.run
    )
    expect({ ...p, kept: kept.length }).toEqual({ ...p, kept: p.samples })
  }
  return ok.length
}

/** IDs of containers (running or not) a check started, by its run label; only those of `role` if given. */
export function checkContainers(checkId: string, role?: 'workload' | 'probe'): string[] {
  const filters = ['--filter', `label=${LABEL}=${checkId}`]
  if (role) filters.push('--filter', `label=${ROLE_LABEL}=${role}`)
  const ps = spawnSync('docker', ['ps', '-aq', ...filters], { encoding: 'utf8' })
  return ps.stdout.split('\n').filter(Boolean)
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // A killed child whose parent is gone is reaped by init; a zombie counts as dead.
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return false
  }
}

export type FaultMode = 'ok' | 'garbage' | 'hang'

export interface FaultSpec {
  native?: FaultMode
  container?: FaultMode
  /** Native runs that behave before the fault (counted in a file outside the workloads folder). */
  nativeGood?: number
}

/**
 * FAULT INJECTION: a copy of workloads/ whose matmul.py runs the real one (matmul_real.py) or, as
 * fault.json says per arm, prints non-protocol output and exits 3, or hangs with a child process
 * (its PID written to `pids`). Point GPU_OVERHEAD_WORKLOADS at the returned folder.
 */
export function faultyWorkloads(spec: FaultSpec): { dir: string; pids: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hardening-workloads-'))
  const dir = path.join(root, 'workloads')
  fs.cpSync(WORKLOADS, dir, { recursive: true, filter: src => !src.includes('__pycache__') })
  fs.renameSync(path.join(dir, 'matmul.py'), path.join(dir, 'matmul_real.py'))
  const pids = path.join(root, 'pids')
  fs.writeFileSync(
    path.join(dir, 'fault.json'),
    JSON.stringify({
      native: spec.native ?? 'ok',
      container: spec.container ?? 'ok',
      native_good: spec.nativeGood ?? 0,
      counter: path.join(root, 'native-count'),
      pids
    })
  )
  fs.writeFileSync(
    path.join(dir, 'matmul.py'),
    `"""FAULT INJECTION (test/hardening): the real matmul, or the misbehaviour fault.json names."""
import json, os, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "fault.json")) as f:
    spec = json.load(f)
arm = "container" if here == "/gpu-overhead/workloads" else "native"
mode = spec[arm]
if arm == "native" and spec["native_good"]:
    n = int(open(spec["counter"]).read()) if os.path.exists(spec["counter"]) else 0
    with open(spec["counter"], "w") as f:
        f.write(str(n + 1))
    if n < spec["native_good"]:
        mode = "ok"
if mode == "ok":
    os.execv(sys.executable, [sys.executable, os.path.join(here, "matmul_real.py")] + sys.argv[1:])
if mode == "garbage":
    print("Traceback? no: this line is not JSON", flush=True)
    print('{"event": "sample", "metric": "kernel_ms", "value": "fast"}', flush=True)
    sys.exit(3)
if mode == "hang":
    child = subprocess.Popen(["sleep", "3600"])
    if arm == "native":
        with open(spec["pids"], "a") as f:
            f.write("%d %d\\n" % (os.getpid(), child.pid))
    time.sleep(3600)
`
  )
  return { dir, pids }
}
