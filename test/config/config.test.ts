import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import fc from 'fast-check'
import { loadConfig, parseArms, readConfigFile, type RawInputs } from '../../src/config/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { InputError } from '../../src/util/errors.js'

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'cfg-'))
const IMAGE = 'nvcr.io/nvidia/pytorch:25.10-py3@sha256:' + 'a'.repeat(64)

function load(flags: RawInputs = {}, inputs: RawInputs = {}): ReturnType<typeof loadConfig> {
  return loadConfig({ flags, inputs, workspace })
}

function inputError(fn: () => unknown): InputError {
  try {
    fn()
  } catch (error) {
    if (error instanceof InputError) return error
    throw error
  }
  throw new Error('expected an InputError')
}

describe('sequential stopping inputs', () => {
  it('keeps a fixed count fixed: runs above the default max-runs raise max-runs to runs', () => {
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.Runs]: '20' }).maxRuns).toBe(20)
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.Runs]: '5', [Inputs.MaxRuns]: '5' }).maxRuns).toBe(5)
  })

  it('refuses max-runs below runs, naming both', () => {
    expect(() => load({ [Inputs.Image]: IMAGE, [Inputs.Runs]: '6', [Inputs.MaxRuns]: '4' })).toThrow(
      /max-runs.*≥ runs \(6\)/
    )
  })

  it('reads time-budget in seconds or minutes; 0 is no budget', () => {
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.TimeBudget]: '150' }).timeBudgetS).toBe(150)
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.TimeBudget]: '150s' }).timeBudgetS).toBe(150)
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.TimeBudget]: '2.5m' }).timeBudgetS).toBe(150)
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.TimeBudget]: '0' }).timeBudgetS).toBeNull()
    expect(() => load({ [Inputs.Image]: IMAGE, [Inputs.TimeBudget]: 'soon' })).toThrow(/time-budget/)
  })
})

describe('defaults', () => {
  it('gives a complete GPU config', () => {
    const c = load({ [Inputs.Image]: IMAGE })
    expect(c.workloads).toEqual(['matmul', 'llm', 'io'])
    expect(c.runs).toBe(3)
    expect(c.maxRuns).toBe(16)
    expect(c.timeBudgetS).toBeNull()
    expect(c.gateIoThroughput).toBe(false)
    expect(c.device).toBe('gpu')
    expect(c.maxOverheadPct).toBe(2)
    expect(c.alpha).toBe(0.05)
    expect(c.arms.map(a => a.label)).toEqual(['native', 'container'])
    expect(c.matmulSize).toBe(10000)
    expect(c.llmPreset).toBe('1b')
    expect(c.out).toBe(path.join(workspace, 'gpu-overhead-results'))
    expect(c.githubToken).toBeNull()
  })
  it('switches workload sizes for device cpu unless given', () => {
    const c = load({ [Inputs.Image]: IMAGE, [Inputs.Device]: 'cpu' })
    expect([c.matmulSize, c.llmPreset, c.checkpointMb]).toEqual([512, 'tiny', 64])
    expect(
      load({ [Inputs.Image]: IMAGE, [Inputs.Device]: 'cpu', [Inputs.MatmulSize]: '256' }).matmulSize
    ).toBe(256)
  })
  it('holds no process ahead (prestart) on the CPU unless asked: their start-up would share the timed cores', () => {
    expect(load({ [Inputs.Image]: IMAGE }).prestart).toBe(true)
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.Device]: 'cpu' }).prestart).toBe(false)
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.Device]: 'cpu', [Inputs.Prestart]: 'true' }).prestart).toBe(
      true
    )
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.Prestart]: 'false' }).prestart).toBe(false)
  })
})

describe('precedence: flags > inputs > file > defaults', () => {
  it('applies each source in order', () => {
    const file = path.join(workspace, 'p.yml')
    fs.writeFileSync(file, `runs: 7\nseed: 9\nworkloads: [matmul, io]\nmatmul-size: 128\n`)
    const c = load(
      { [Inputs.Config]: file, [Inputs.Runs]: '5', [Inputs.Image]: IMAGE },
      { [Inputs.Runs]: '6', [Inputs.Seed]: '3' }
    )
    expect(c.runs).toBe(5)
    expect(c.seed).toBe(3)
    expect(c.workloads).toEqual(['matmul', 'io'])
    expect(c.matmulSize).toBe(128)
  })
  it('reads gpu-overhead.yml from the workspace when present', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'cfg-ws-'))
    fs.writeFileSync(path.join(ws, 'gpu-overhead.yml'), 'runs: 4\n')
    expect(loadConfig({ workspace: ws, flags: { [Inputs.Image]: IMAGE } }).runs).toBe(4)
  })
})

describe('bad input: one line naming the input, the value and what is allowed', () => {
  const cases: [Inputs, string, RegExp][] = [
    [Inputs.Runs, 'abc', /whole number/],
    [Inputs.Runs, '-3', /whole number/],
    [Inputs.Runs, '1', /from 2 to 1000/],
    [Inputs.Runs, '2.5', /whole number/],
    [Inputs.Device, 'tpu', /gpu \| cpu/],
    [Inputs.GpuAccess, 'magic', /gpus \| cdi \| devices/],
    [Inputs.MaxOverhead, '2%%', /percentage/],
    [Inputs.MaxOverhead, '-1%', /percentage/],
    [Inputs.MaxOverhead, '0', /percentage/],
    [Inputs.MaxOverhead, '150%', /at most 100/],
    [Inputs.Alpha, '0.9', /at most 0.5/],
    [Inputs.Alpha, 'x', /number/],
    [Inputs.Workloads, 'matmul,bogus', /matmul \| llm \| io/],
    [Inputs.Workloads, ',', /non-empty/],
    [Inputs.Comment, 'sometimes', /always \| on-regression \| never/],
    [Inputs.SaveBaseline, 'maybe', /true \| false/],
    [Inputs.Image, 'ubuntu; rm -rf /', /image reference/],
    [Inputs.Image, 'ubuntu:latest\nevil', /image reference/],
    [Inputs.Image, '$(touch /tmp/x)', /image reference/],
    [Inputs.Image, 'Ubuntu', /image reference/],
    [Inputs.Arms, 'native', /at least two/],
    [Inputs.Arms, 'native,vm', /native \| container/],
    [Inputs.Arms, 'native,container:bad ref', /image reference/],
    [Inputs.Out, '../outside', /inside the workspace/],
    [Inputs.BaselinePath, '/etc/baseline.json', /inside the workspace/],
    [Inputs.DataPath, '/does/not/exist', /existing directory/],
    [Inputs.Gpus, '0,x', /GPU indices/],
    [Inputs.MatmulDtype, 'fp64', /fp32 \| tf32 \| bf16 \| fp16/],
    [Inputs.Python, 'python3; id', /interpreter/],
    [Inputs.RunTimeout, '0', /from 5/]
  ]
  it.each(cases)('%s = %j', (name, value, allowed) => {
    const err = inputError(() => load({ [Inputs.Image]: IMAGE, [name]: value }))
    expect(err.input).toBe(name)
    expect(err.exitCode).toBe(2)
    expect(err.message).toMatch(allowed)
    expect(err.message).toContain(name)
    expect(err.message.split('\n')).toHaveLength(1)
  })
  it('needs an image when an arm is a container', () => {
    expect(inputError(() => load()).input).toBe(Inputs.Image)
    expect(load({ [Inputs.Arms]: 'native,native' }).arms.map(a => a.label)).toEqual(['native', 'native#2'])
  })
})

describe('config file errors', () => {
  const write = (text: string): string => {
    const f = path.join(workspace, `c${Math.random()}.yml`)
    fs.writeFileSync(f, text)
    return f
  }
  it('rejects unknown keys, wrong types, tokens and bad YAML', () => {
    expect(inputError(() => readConfigFile(write('runz: 3\n'))).message).toMatch(/runz/)
    expect(inputError(() => readConfigFile(write('runs: {a: 1}\n'))).input).toBe('runs')
    expect(inputError(() => readConfigFile(write('github-token: abc\n'))).message).toMatch(
      /github-token is a workflow input or flag only/
    )
    expect(inputError(() => readConfigFile(write('runs: [\n'))).message).toMatch(/valid YAML/)
    expect(inputError(() => readConfigFile(write('- a\n- b\n'))).message).toMatch(/mapping/)
    expect(inputError(() => readConfigFile(path.join(workspace, 'missing.yml'))).message).toMatch(/ENOENT/)
  })
})

describe('property: config parsing never accepts garbage silently', () => {
  it('runs: any string is either a valid integer in range or an InputError naming runs', () => {
    fc.assert(
      fc.property(fc.string(), s => {
        try {
          const c = load({ [Inputs.Image]: IMAGE, [Inputs.Runs]: s })
          return (
            Number.isInteger(c.runs) &&
            c.runs >= 2 &&
            c.runs <= 1000 &&
            (s.trim() === '' || Number(s.trim()) === c.runs)
          )
        } catch (error) {
          return error instanceof InputError && error.input === String(Inputs.Runs)
        }
      })
    )
  })
  it('image: anything with whitespace or shell metacharacters is rejected', () => {
    const bad = fc
      .tuple(
        fc.string(),
        fc.constantFrom(' ', '\n', ';', '$(', '`', '|', '&', '>', '<', "'", '"', '\\', '*'),
        fc.string()
      )
      .map(([a, m, b]) => `ubuntu${a}${m}${b}`)
    fc.assert(
      fc.property(bad, ref => {
        try {
          load({ [Inputs.Image]: ref })
          return false
        } catch (error) {
          return error instanceof InputError && error.input === String(Inputs.Image)
        }
      })
    )
  })
  it('max-overhead: a bare fraction (0.02) is refused with the fix; with a percent sign it means what it says', () => {
    const max = (v: string) => load({ [Inputs.Image]: IMAGE, [Inputs.MaxOverhead]: v }).maxOverheadPct
    expect(() => max('0.02')).toThrow(
      'input \'max-overhead\': got "0.02"; allowed: a percentage, e.g. 2%; 0.02 looks like a fraction: write 2% (or 0.02% if you mean 0.02 percent)'
    )
    expect(() => max('0.5')).toThrow(/write 50% \(or 0\.5% if you mean 0\.5 percent\)/)
    expect(() => max(' 0.07 ')).toThrow(/write 7% /)
    expect(max('0.02%')).toBe(0.02)
    expect(max('0.5 %')).toBe(0.5)
    expect(max('2')).toBe(2)
    expect(max('1')).toBe(1)
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), d => {
        const bare = String(d)
        expect(() => max(bare)).toThrow(InputError)
        if (d > 0) expect(max(`${bare}%`)).toBe(d)
      })
    )
  })

  it('max-overhead: accepted values are always within (0, 100]', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.double().map(String),
          fc.double().map(d => `${d}%`)
        ),
        s => {
          try {
            const v = load({ [Inputs.Image]: IMAGE, [Inputs.MaxOverhead]: s }).maxOverheadPct
            return v > 0 && v <= 100
          } catch (error) {
            return error instanceof InputError && error.input === String(Inputs.MaxOverhead)
          }
        }
      )
    )
  })
})

describe('arms', () => {
  it('parses image-bump arms and labels duplicates', () => {
    const arms = parseArms(`container:${IMAGE},container:nvcr.io/nvidia/pytorch:25.11-py3,native`, IMAGE)
    expect(arms.map(a => a.kind)).toEqual(['container', 'container', 'native'])
    expect(arms[1]?.image).toBe('nvcr.io/nvidia/pytorch:25.11-py3')
    expect(parseArms('container,container', IMAGE).map(a => a.label)).toEqual(['container', 'container#2'])
  })

  it('parses every image an arm runs once: unique, in arm order, typed', () => {
    const bump = 'nvcr.io/nvidia/pytorch:25.11-py3'
    const c = load({
      [Inputs.Image]: IMAGE,
      [Inputs.Arms]: `container:${bump},native,container,container:${bump}`
    })
    expect(c.images).toEqual([
      { ref: bump, repository: 'nvcr.io/nvidia/pytorch', tag: '25.11-py3', digest: null },
      {
        ref: IMAGE,
        repository: 'nvcr.io/nvidia/pytorch',
        tag: '25.10-py3',
        digest: `sha256:${'a'.repeat(64)}`
      }
    ])
    expect(c.arms.filter(a => a.kind === 'container').map(a => a.image)).toEqual([bump, IMAGE, bump])
    expect(load({ [Inputs.Arms]: 'native,native' }).images).toEqual([])
  })
})

describe('power-caps', () => {
  it('is empty by default and keeps the order given', () => {
    expect(load({ [Inputs.Image]: IMAGE }).powerCaps).toEqual([])
    expect(load({ [Inputs.Image]: IMAGE, [Inputs.PowerCaps]: '550, 400,700' }).powerCaps).toEqual([
      550, 400, 700
    ])
  })
  it.each(['abc', '40', '2500', '400,400', '-300', '400W'])(
    'refuses %j naming the input and the allowed form',
    raw => {
      const e = inputError(() => load({ [Inputs.Image]: IMAGE, [Inputs.PowerCaps]: raw }))
      expect(e.input).toBe('power-caps')
      expect(e.allowed).toMatch(/power limits in watts, e\.g\. 400,550,700/)
    }
  )
  it('needs a GPU', () => {
    const e = inputError(() =>
      load({ [Inputs.Device]: 'cpu', [Inputs.Arms]: 'native,native', [Inputs.PowerCaps]: '400' })
    )
    expect(e.message).toBe(`input 'power-caps': got "400"; allowed: empty with device: cpu (caps need a GPU)`)
  })
})

describe('results-format as action.yml and the README spell it (issue 40)', () => {
  it.each([
    'customSmallerIsBetter',
    'customBiggerIsBetter',
    'custombiggerisbetter',
    'aiperf',
    'trtllm-bench'
  ])('%s is accepted and kept in its canonical spelling', async raw => {
    const { actionSource, parseAnalyze } = await import('../../src/config/index.js')
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-results-format-'))
    try {
      fs.writeFileSync(path.join(ws, 'a.json'), '[]')
      const cfg = parseAnalyze(
        actionSource({
          workspace: ws,
          inputs: { [Inputs.ResultsFormat]: raw, [Inputs.Results]: 'native=a.json,container=a.json' }
        })
      )
      expect(cfg.format.toLowerCase()).toBe(raw.toLowerCase())
      expect(['customSmallerIsBetter', 'customBiggerIsBetter', 'aiperf', 'trtllm-bench']).toContain(
        cfg.format
      )
    } finally {
      fs.rmSync(ws, { recursive: true, force: true })
    }
  })
})

describe('gate-metrics', () => {
  it('defaults to none: tail metrics are shown, not gated', () => {
    expect(load({ [Inputs.Image]: IMAGE }).gateMetrics).toEqual([])
  })

  it('reads WORKLOAD/METRIC entries separated by commas or newlines, once each', () => {
    const cfg = load({
      [Inputs.Image]: IMAGE,
      [Inputs.GateMetrics]: 'llm/tpot_p99_ms, llm/ttft_p90_ms\nvllm-bench-serve/p99_ttft_ms,llm/tpot_p99_ms'
    })
    expect(cfg.gateMetrics).toEqual([
      { workload: 'llm', metric: 'tpot_p99_ms' },
      { workload: 'llm', metric: 'ttft_p90_ms' },
      { workload: 'vllm-bench-serve', metric: 'p99_ttft_ms' }
    ])
  })

  it.each([
    ['llm/tpot_ms', 'llm/tpot_ms'],
    ['tpot_p99_ms', 'tpot_p99_ms'],
    ['llm/tpot_p99_ms,matmul/kernel_ms', 'matmul/kernel_ms'],
    ['mycmd/latency_p99', 'mycmd/latency_p99'],
    ['vllm-bench-serve/mean_ttft_ms', 'vllm-bench-serve/mean_ttft_ms'],
    ['llm/../x', 'llm/../x']
  ])('refuses %j, quoting the bad entry and the allowed values', (raw, bad) => {
    const e = inputError(() => load({ [Inputs.Image]: IMAGE, [Inputs.GateMetrics]: raw }))
    expect(e.message).toContain('gate-metrics')
    expect(e.message).toContain(bad)
    expect(e.message).toMatch(/WORKLOAD\/METRIC/)
    expect(e.message).toMatch(/ttft_p90_ms, ttft_p99_ms, tpot_p90_ms, tpot_p99_ms, itl_p90_ms, itl_p99_ms/)
  })
})
