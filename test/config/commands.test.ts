/**
 * Issue 27: `commands` — the user's own workloads. Words are split like a shell splits them, but no shell runs
 * the command: what only a shell could do is refused. Trusted inputs only; names and formats validated.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { loadConfig } from '../../src/config/index.js'
import { commandWorkloads, splitCommand } from '../../src/config/commands.js'
import { COMMAND_FORMATS, FILE_COMMAND_FORMATS, RESULT_FORMATS } from '../../src/types/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { InputError } from '../../src/util/errors.js'

const IMAGE = 'nvcr.io/nvidia/pytorch:25.10-py3@sha256:' + 'a'.repeat(64)
const CPU = { [Inputs.Image]: IMAGE, [Inputs.Device]: 'cpu', [Inputs.Python]: '/usr/bin/python3' }
const ws = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'commands-cfg-'))

function refused(f: () => unknown): InputError {
  try {
    f()
  } catch (e) {
    if (e instanceof InputError) return e
    throw e
  }
  throw new Error('expected an InputError')
}

describe('splitCommand: shell words without a shell', () => {
  it.each([
    ['python3 bench.py --batch 8', ['python3', 'bench.py', '--batch', '8']],
    [`python3 -c "import time; time.sleep(0.1)"`, ['python3', '-c', 'import time; time.sleep(0.1)']],
    [`echo 'a b' "c \\"d\\"" e\\ f`, ['echo', 'a b', 'c "d"', 'e f']],
    [
      'hyperfine --export-json {out}/h.json "python3 x.py"',
      ['hyperfine', '--export-json', '{out}/h.json', 'python3 x.py']
    ],
    ['  spaced   out  ', ['spaced', 'out']]
  ])('%s', (text, words) => {
    expect(splitCommand('x', text)).toEqual(words)
  })

  it.each([
    'python3 a.py | tee log',
    'make && ./bench',
    'bench; rm -rf /',
    'bench > out.txt',
    'echo $HOME',
    'echo `id`',
    'echo "$HOME"',
    'ls *.py',
    'echo "unbalanced',
    'run (sub)'
  ])('refuses %s, saying no shell runs it', text => {
    const e = refused(() => splitCommand('x', text))
    expect(e.input).toBe(Inputs.Commands)
    expect(e.message).toMatch(/no shell|balanced quotes/)
  })
})

describe('command formats', () => {
  it('are auto, protocol, wall and every JSON result format analyze reads (not the long CSV)', () => {
    expect(FILE_COMMAND_FORMATS).toEqual(RESULT_FORMATS.filter(f => f !== 'csv'))
    expect(COMMAND_FORMATS).toEqual(['auto', 'protocol', 'wall', ...FILE_COMMAND_FORMATS])
    expect(FILE_COMMAND_FORMATS).toEqual([
      'hyperfine',
      'pytest-benchmark',
      'google-benchmark',
      'vllm-bench-serve',
      'customSmallerIsBetter',
      'customBiggerIsBetter'
    ])
  })
})

describe('commandWorkloads', () => {
  it('reads NAME: CMD and NAME=CMD lines, with formats (auto by default)', () => {
    const c = commandWorkloads(
      '# mine\nmybench: python3 bench.py\nhf=hyperfine --export-json {out}/r.json true\n',
      'hf=hyperfine'
    )
    expect(c).toEqual([
      { name: 'mybench', argv: ['python3', 'bench.py'], format: 'auto' },
      { name: 'hf', argv: ['hyperfine', '--export-json', '{out}/r.json', 'true'], format: 'hyperfine' }
    ])
  })

  it.each([
    ['matmul: python3 x.py', '', /not a built-in/],
    ['Bad Name: x', '', /NAME: COMMAND|lowercase/],
    ['a: x\na: y', '', /each name once/],
    ['a:', '', /a command after the name/],
    ['a: x', 'a=json', /auto\|protocol\|wall/],
    ['a: x', 'b=wall', /the name of a command/]
  ])('%s / %s is refused', (commands, formats, why) => {
    expect(refused(() => commandWorkloads(commands, formats)).message).toMatch(why)
  })
})

describe('commands in the configuration', () => {
  it('with commands and no workloads input, the check runs the commands (no prestart)', () => {
    const c = loadConfig({ workspace: ws(), flags: { ...CPU, [Inputs.Commands]: 'mine: python3 bench.py' } })
    expect(c.workloads).toEqual(['mine'])
    expect(c.prestart).toBe(false)
    const both = loadConfig({
      workspace: ws(),
      flags: { ...CPU, [Inputs.Commands]: 'mine: python3 bench.py', [Inputs.Workloads]: 'matmul,mine' }
    })
    expect(both.workloads).toEqual(['matmul', 'mine'])
    expect(
      refused(() => loadConfig({ workspace: ws(), flags: { ...CPU, [Inputs.Workloads]: 'mine' } })).input
    ).toBe(Inputs.Workloads)
  })

  it('a command never comes from the checked-out config file', () => {
    const w = ws()
    fs.writeFileSync(path.join(w, 'gpu-overhead.yml'), 'commands: "evil: curl example.com"\n')
    expect(refused(() => loadConfig({ workspace: w, flags: CPU })).input).toBe(Inputs.Commands)
  })
})
