/**
 * Issue 53's low cases, each as a user meets it: `gpu-overhead` (the CLI's main, in this process) or the
 * action's run().
 */
import { jest } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { main } from '../../src/entry/cli/index.js'
import { clearSecrets } from '../../src/util/secrets.js'

const FIX = path.join(import.meta.dirname, '..', '__fixtures__', 'adapters')
const made: string[] = []
const tmp = (prefix: string): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `gpu-overhead-r4-${prefix}-`))
  made.push(d)
  return d
}
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true })
})
afterEach(() => {
  process.exitCode = undefined
  clearSecrets()
})

/** The CLI's main in this process, in `cwd`: exit code, stdout and stderr. */
async function cli(args: string[], cwd = process.cwd()): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const o = jest.spyOn(process.stdout, 'write').mockImplementation(s => (out.push(String(s)), true))
  const e = jest.spyOn(process.stderr, 'write').mockImplementation(s => (err.push(String(s)), true))
  const was = process.cwd()
  try {
    process.chdir(cwd)
    const code = await main(['node', 'gpu-overhead', ...args])
    return { code, out: out.join(''), err: err.join('') }
  } finally {
    process.chdir(was)
    o.mockRestore()
    e.mockRestore()
  }
}

describe('gate-metrics names a metric without data (C16-27, -28, -37)', () => {
  /** vLLM runs, 5 per arm, alike; `drop(arm, run)` says which runs' files leave p99_tpot_ms out. */
  function inputs(drop: (arm: string, run: number) => boolean): string[] {
    const dir = tmp('gate-metrics')
    const doc = JSON.parse(fs.readFileSync(path.join(FIX, 'vllm-bench-serve.json'), 'utf8')) as Record<
      string,
      unknown
    >
    const out: string[] = []
    for (let k = 0; k < 5; k++)
      for (const arm of ['native', 'container']) {
        const run = Object.fromEntries(
          Object.entries(doc)
            .filter(([key]) => !(key === 'p99_tpot_ms' && drop(arm, k)))
            .map(([key, v]) => [key, typeof v === 'number' && /_ms$/.test(key) ? v * (1 + 0.002 * k) : v])
        )
        const file = path.join(dir, `${arm}-${k}.json`)
        fs.writeFileSync(file, JSON.stringify(run))
        out.push(`${arm}=${file}`)
      }
    return out
  }
  const analyze = (files: string[]): Promise<{ code: number; out: string; err: string }> =>
    cli([
      'analyze',
      '--format-in',
      'vllm-bench-serve',
      '--input',
      files.join(','),
      '--format',
      'json',
      '--gate-metrics',
      'vllm-bench-serve/p99_tpot_ms'
    ])

  it.each([
    ["the candidate's files leave it out", (arm: string): boolean => arm === 'container'],
    ["the baseline's files leave it out", (arm: string): boolean => arm === 'native'],
    ['no file has it', (): boolean => true],
    ['one candidate run has it', (arm: string, k: number): boolean => arm === 'container' && k > 0]
  ])('%s: an error (exit 2) that names it, never a pass', async (_, drop) => {
    const r = await analyze(inputs(drop))
    expect(r.code).toBe(2)
    const json = JSON.parse(r.out) as { error?: string }
    expect(json.error).toMatch(/gate-metrics names .*vllm-bench-serve\/p99_tpot_ms/)
  })

  it('the control: both arms have it in every run, and the check decides (not an error)', async () => {
    const r = await analyze(inputs(() => false))
    expect(r.code).not.toBe(2)
    expect((JSON.parse(r.out) as { error?: string }).error).toBeUndefined()
  })
})
