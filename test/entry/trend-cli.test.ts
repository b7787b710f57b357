/** `gpu-overhead trend` through the CLI's own main(): flags, formats and exit codes. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { buildHistory, nightDigest } from '../helpers/trend-history.js'
import { mainInProcess, type MainResult } from '../helpers/main-in-process.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-trend-cli-'))
function baselineFile(name: string, level: (n: number) => number): string {
  const file = path.join(dir, name)
  const data = buildHistory({ nights: 50, level, digest: n => nightDigest(n < 25 ? 1 : 2) })
  writeFileSync(file, JSON.stringify(data))
  return file
}
const stepped = baselineFile('step.json', n => (n < 25 ? 41 : 43.05))
const flat = baselineFile('flat.json', () => 41)

function cli(...args: string[]): Promise<MainResult> {
  return mainInProcess(['trend', ...args])
}

describe('gpu-overhead trend', () => {
  it('exits 1 on an open change point and prints the markdown report', async () => {
    const r = await cli('--baseline', stepped)
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('## GPU overhead trend')
    expect(r.stdout).toContain('```mermaid')
    expect(r.stderr).toContain('trend: 1 open change point (')
  })

  it('exits 0 without one; JSON carries the series and the verdict', async () => {
    const r = await cli('--baseline', flat, '--format', 'json')
    expect(r.code).toBe(0)
    const json = JSON.parse(r.stdout) as { verdict: string; series: unknown[]; open: unknown[] }
    expect(json.verdict).toBe('pass')
    expect(json.series).toHaveLength(2)
    expect(json.open).toEqual([])
  })

  it('takes --metric, --min-change, --max-p and --window', async () => {
    expect((await cli('--baseline', stepped, '--metric', 'kernel_ms', '--min-change', '10%')).code).toBe(0)
    expect((await cli('--baseline', stepped, '--max-p', '0.01')).code).toBe(1)
    expect((await cli('--baseline', stepped, '--max-p', '2')).code).toBe(2)
    expect((await cli('--baseline', stepped, '--window', '20')).code).toBe(1)
  })

  it('exits 2 with one line naming the problem', async () => {
    const missing = await cli('--baseline', path.join(dir, 'none.json'))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no baseline file at')
    const metric = await cli('--baseline', stepped, '--metric', 'tok_s')
    expect(metric.code).toBe(2)
    expect(metric.stderr).toContain('a metric in the history: kernel_ms')
    const bad = await cli('--baseline', stepped, '--window', '0x10')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('window')
    const corrupt = path.join(dir, 'corrupt.json')
    writeFileSync(corrupt, '{"schema": "gpu-overhead/baseline@1", "entries": 3}')
    const c = await cli('--baseline', corrupt)
    expect(c.code).toBe(2)
    expect(c.stderr).toContain('was ignored')
  })
})
