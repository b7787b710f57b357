/**
 * Faults around the check, through the real CLI: no Docker engine, a missing image, nvidia-smi missing,
 * slow or printing garbage, a results folder that cannot be created or written, a full disk, and a
 * corrupt baseline file. Each is exit 2 with one line (no stack trace) or, for a full disk, a stop that
 * keeps what fits; a corrupt baseline is a warning and the file is left untouched.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { ensurePythonImage } from '../helpers/docker-image.js'
import {
  FAST,
  cli,
  errorLine,
  expectIncomplete,
  expectKeptBeforeFault,
  readSamples,
  readSummary,
  workspace
} from './helpers.js'

let image = ''
beforeAll(async () => {
  image = await ensurePythonImage()
}, 600_000)

/** A directory with only the given fake tools (FAULT INJECTION scripts), for PATH. */
function fakeBin(tools: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(workspace('bin'), 'bin-'))
  for (const [name, script] of Object.entries(tools)) {
    fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${script}\n`)
    fs.chmodSync(path.join(dir, name), 0o755)
  }
  return dir
}

/** Mounts a tmpfs (needs root / CAP_SYS_ADMIN); null with the reason when that is not possible here. */
function tmpfs(dir: string, options: string): string | null {
  fs.mkdirSync(dir, { recursive: true })
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' })
  return r.status === 0 ? null : `cannot mount a tmpfs here (${(r.stderr || r.error?.message || '').trim()})`
}

function umount(dir: string): void {
  spawnSync('umount', [dir])
}

describe('environment faults (real CLI)', () => {
  it('Docker engine not reachable (DOCKER_HOST at a dead socket): exit 2, one line naming DOCKER_HOST', () => {
    const ws = workspace('dead-docker')
    const env = { ...process.env, DOCKER_HOST: `unix://${path.join(ws, 'dead.sock')}` }
    const r = cli(['run', ...FAST, '--image', image, '--out', 'out'], ws, env)
    expect(r.code).toBe(2)
    expect(errorLine(r)).toMatch(/docker cannot reach its engine: .*dead\.sock.*check DOCKER_HOST/)
    expectIncomplete(path.join(ws, 'out'), /cannot reach its engine/)
    expect(readSamples(path.join(ws, 'out'))).toEqual([])
  })

  it('image never built: exit 2, the line names the image', () => {
    const ws = workspace('no-image')
    const ref = `local/gpu-overhead-never-built:${Date.now()}`
    const r = cli(['run', ...FAST, '--image', ref, '--out', 'out'], ws)
    expect(r.code).toBe(2)
    expect(errorLine(r)).toContain(`image ${ref} is not present locally`)
    expectIncomplete(path.join(ws, 'out'), /not present locally/)
  })

  describe('nvidia-smi on a --device gpu run', () => {
    const gpuRun = ['run', '--device', 'gpu', '--arms', 'native,native', '--runs', '2', '--out', 'out']
    it('absent from PATH: exit 2 with the "or run with --device cpu" hint', () => {
      const ws = workspace('no-smi')
      // python by path: the interpreter check (config time) must not preempt the nvidia-smi one.
      const r = cli([...gpuRun, '--python', '/usr/bin/python3'], ws, { ...process.env, PATH: fakeBin({}) })
      expect(r.code).toBe(2)
      expect(errorLine(r)).toMatch(/nvidia-smi not found: .*or run with --device cpu$/)
    })
    it('printing garbage (FAULT INJECTION, not a recording): exit 2, one line quoting it', () => {
      const ws = workspace('garbage-smi')
      const bin = fakeBin({ 'nvidia-smi': 'echo "garbage, not, csv"' })
      const r = cli(gpuRun, ws, { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` })
      expect(r.code).toBe(2)
      expect(errorLine(r)).toMatch(/nvidia-smi --query-gpu returned 3 fields .*"garbage, not, csv"/)
    })
    it('slow (3 s) and then garbage: waited for, then the same clean exit 2', () => {
      const ws = workspace('slow-smi')
      const bin = fakeBin({ 'nvidia-smi': 'sleep 3; echo "garbage, not, csv"' })
      const t0 = Date.now()
      const r = cli(gpuRun, ws, { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` })
      expect(Date.now() - t0).toBeGreaterThanOrEqual(3000)
      expect(r.code).toBe(2)
      expect(errorLine(r)).toMatch(/returned 3 fields/)
    })
  })

  it('--out is an existing regular file: exit 2 naming the folder and the input, file untouched', () => {
    const ws = workspace('out-file')
    fs.writeFileSync(path.join(ws, 'results'), 'not a folder\n')
    const r = cli(['run', ...FAST, '--arms', 'native,native', '--out', 'results'], ws)
    expect(r.code).toBe(2)
    expect(errorLine(r)).toMatch(
      /cannot write the results folder .*results \(input 'out'\): a file \(not a folder\) is in the way/
    )
    expect(fs.readFileSync(path.join(ws, 'results'), 'utf8')).toBe('not a folder\n')
  })

  it('--out on a read-only file system: exit 2, "read-only (EROFS)"', () => {
    const ws = workspace('out-ro')
    const ro = path.join(ws, 'ro')
    const skip = tmpfs(ro, 'size=64k,ro')
    if (skip) return console.warn(`skipped: ${skip}`)
    try {
      const r = cli(['run', ...FAST, '--arms', 'native,native', '--out', 'ro/out'], ws)
      expect(r.code).toBe(2)
      expect(errorLine(r)).toMatch(
        /results folder .*ro\/out \(input 'out'\): the file system is read-only \(EROFS\)/
      )
    } finally {
      umount(ro)
    }
  })

  it('disk full mid-check (160 KiB tmpfs: the run folders live in the work folder too): stops, keeps what fits, INCOMPLETE, exit 2, no stack trace', () => {
    const ws = workspace('enospc')
    const full = path.join(ws, 'full')
    const skip = tmpfs(full, 'size=160k')
    if (skip) return console.warn(`skipped: ${skip}`)
    try {
      const args = [
        'run',
        ...FAST,
        '--arms',
        'native,native',
        '--runs',
        '6',
        '--max-runs',
        '6',
        '--out',
        'full/out'
      ]
      const r = cli(args, ws)
      const out = path.join(full, 'out')
      expect(r.code).toBe(2)
      expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)
      expect(r.stderr).toMatch(
        /stopping the check: writing \S+ failed: the disk is full \(ENOSPC\) after \d+ of 12/
      )
      expect(r.stdout).toMatch(/^\*\*INCOMPLETE\*\* — writing \S+ failed: the disk is full \(ENOSPC\)/)
      // The report and summary that fit are the INCOMPLETE placeholders written at the start.
      expectIncomplete(out)
      // Every run finished before the one that hit the full disk is whole in results.jsonl.
      expect(expectKeptBeforeFault(out, r.stderr, { exceptLast: true })).toBeGreaterThanOrEqual(1)
    } finally {
      umount(full)
    }
  })

  it('corrupt baseline file: a warning in the report, the file left byte for byte', () => {
    const ws = workspace('corrupt-baseline')
    const file = path.join(ws, '.github/gpu-overhead/baseline.json')
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const corrupt = '{"schema": "gpu-overhead/baseline@1", "entries": [ {"torn'
    fs.writeFileSync(file, corrupt)
    const r = cli(['run', ...FAST, '--arms', 'native,native', '--save-baseline', '--out', 'out'], ws)
    expect([0, 1]).toContain(r.code)
    const out = path.join(ws, 'out')
    const summary = readSummary(out)
    expect(summary.complete).toBe(true)
    expect(summary.baseline?.status).toBe('corrupt')
    expect(summary.warnings.join('\n')).toMatch(/baseline.*not valid JSON/)
    expect(fs.readFileSync(path.join(out, 'report.md'), 'utf8')).toMatch(/not valid JSON/)
    expect(fs.readFileSync(file, 'utf8')).toBe(corrupt)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['baseline.json'])
  })
})
