/**
 * Issue 27: `commands` — the user's own workloads. Words are split like a shell splits them, but no shell runs
 * the command: what only a shell could do is refused. From the workflow, and from the checked-out config
 * file's `commands:` map only with allow-config-commands; names, formats and bounds judged alike.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { commandSourceLines, loadConfig } from '../../src/config/index.js'
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
      'sglang-bench-serving',
      'trtllm-bench',
      'aiperf',
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
      { name: 'mybench', argv: ['python3', 'bench.py'], format: 'auto', source: 'workflow' },
      {
        name: 'hf',
        argv: ['hyperfine', '--export-json', '{out}/r.json', 'true'],
        format: 'hyperfine',
        source: 'workflow'
      }
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

  it('workloads: auto (the default, which the runner always sets) runs the built-ins, or only the commands when given', () => {
    const builtins = loadConfig({ workspace: ws(), flags: { ...CPU, [Inputs.Workloads]: 'auto' } })
    expect(builtins.workloads).toEqual(['matmul', 'llm', 'io'])
    expect(loadConfig({ workspace: ws(), flags: CPU }).workloads).toEqual(['matmul', 'llm', 'io'])
    // As the runner sets it: the input is there with its default, beside the commands.
    const commands = loadConfig({
      workspace: ws(),
      inputs: {
        ...CPU,
        [Inputs.Workloads]: 'auto',
        [Inputs.Commands]: 'mine: python3 bench.py\nother: python3 b.py'
      }
    })
    expect(commands.workloads).toEqual(['mine', 'other'])
    expect(commands.definitions.map(d => d.name)).toEqual(['mine', 'other'])
  })

  it('an explicit list that leaves a command out is an error naming the command, never a silent drop', () => {
    const e = refused(() =>
      loadConfig({
        workspace: ws(),
        flags: { ...CPU, [Inputs.Commands]: 'x: python3 bench.py', [Inputs.Workloads]: 'matmul' }
      })
    )
    expect(e.input).toBe(Inputs.Workloads)
    expect(e.message).toMatch(
      /command x would not run \(add x to workloads, e\.g\. workloads: matmul,x; or workloads: auto/
    )
    // A name that is neither built in nor a command names both lists.
    const unknown = refused(() =>
      loadConfig({
        workspace: ws(),
        flags: { ...CPU, [Inputs.Commands]: 'x: python3 bench.py', [Inputs.Workloads]: 'matmul,x,y' }
      })
    )
    expect(unknown.message).toMatch(
      /got "y".*built-in workload \(matmul \| llm \| io\) or one of the commands \(x\)/
    )
    expect(
      refused(() => loadConfig({ workspace: ws(), flags: { ...CPU, [Inputs.Workloads]: 'matmul,auto' } }))
        .message
    ).toMatch(/auto alone/)
  })

  it('a command from the checked-out config file is refused without the opt-in, naming the key and the input', () => {
    for (const [text, inputs] of [
      ['commands: "evil: curl example.com"\n', {}],
      ['commands:\n  evil: curl example.com\n', {}],
      ['commands:\n  evil: curl example.com\n', { [Inputs.AllowConfigCommands]: 'false' }],
      // Even an empty map: the key is the tree asking to choose what runs.
      ['commands: {}\n', {}]
    ] as const) {
      const w = ws()
      fs.writeFileSync(path.join(w, 'gpu-overhead.yml'), text)
      const e = refused(() => loadConfig({ workspace: w, flags: CPU, inputs }))
      expect(e.input).toBe(Inputs.Commands)
      expect(e.message).toMatch(/^input 'commands': got "\(set in the config file gpu-overhead\.yml\)"/)
      expect(e.message).toMatch(/sets the input allow-config-commands: true \(CLI --allow-config-commands\)/)
      expect(e.message).not.toContain('curl')
    }
  })
})

/** A workspace whose checked-out config file holds `text`, loaded with the workflow's inputs and flags. */
function withFile(text: string, flags: Record<string, string> = {}, inputs: Record<string, string> = {}) {
  const w = ws()
  fs.writeFileSync(path.join(w, 'gpu-overhead.yml'), text)
  return loadConfig({ workspace: w, flags: { ...CPU, ...flags }, inputs })
}
const ALLOW = { [Inputs.AllowConfigCommands]: 'true' }

describe('commands from the config file, with allow-config-commands', () => {
  it('are read in both forms, from the file, with their formats (auto by default)', () => {
    const text = [
      'runs: 4',
      'commands:',
      '  mine: python3 bench.py --batch 8',
      '  hf:',
      '    run: hyperfine --export-json {out}/h.json "python3 x.py"',
      '    format: hyperfine',
      '  plain: {run: "python3 -c \'print(1)\'"}',
      ''
    ].join('\n')
    for (const c of [withFile(text, ALLOW), withFile(text, {}, ALLOW)]) {
      expect(c.allowConfigCommands).toBe(true)
      expect(c.runs).toBe(4)
      expect(c.commands).toEqual([
        {
          name: 'mine',
          argv: ['python3', 'bench.py', '--batch', '8'],
          format: 'auto',
          source: 'config-file'
        },
        {
          name: 'hf',
          argv: ['hyperfine', '--export-json', '{out}/h.json', 'python3 x.py'],
          format: 'hyperfine',
          source: 'config-file'
        },
        { name: 'plain', argv: ['python3', '-c', 'print(1)'], format: 'auto', source: 'config-file' }
      ])
      // No workloads input: the commands run (no prestart), as with the input.
      expect(c.workloads).toEqual(['mine', 'hf', 'plain'])
      expect(c.prestart).toBe(false)
    }
    // The file's knobs may name its commands among the workloads.
    expect(withFile('workloads: matmul,mine\ncommands:\n  mine: python3 b.py\n', ALLOW).workloads).toEqual([
      'matmul',
      'mine'
    ])
    // Off by default, and off says so: nothing read, nothing recorded.
    expect(loadConfig({ workspace: ws(), flags: CPU }).allowConfigCommands).toBe(false)
  })

  it.each([
    ['mine: python3 a.py | tee log', /no shell runs it/],
    ['mine: make && ./bench', /no shell runs it/],
    ['mine: echo $HOME', /no shell runs it/],
    ['mine: \'echo "$HOME"\'', /without \$ or `/],
    ['mine: ls *.py', /no shell runs it/],
    ["mine: 'echo \"unbalanced'", /balanced quotes/],
    ['mine: "python3 a.py\\n--evil"', /on one line/],
    ['mine: "python3 a.py\\0"', /on one line/],
    ['matmul: python3 x.py', /not a built-in/],
    ['Bad_Name: x', /lowercase letters/],
    ['"a b": x', /lowercase letters/],
    ['mine: ""', /a command after the name/],
    ['mine: 42', /a command \(a string\)/],
    ['mine: [python3, a.py]', /a command \(a string\)/],
    ['mine: {run: x, shell: true}', /run and format only/],
    ['mine: {format: wall}', /run: COMMAND/],
    ['mine: {run: x, format: json}', /format: auto\|protocol\|wall\|hyperfine/],
    ['mine: {run: x, format: csv}', /format: auto\|protocol\|wall/],
    ['mine: {run: [x]}', /a command \(a string\)/],
    ['42: x', /a command name \(a string\)/]
  ])('commands: {%s} is refused like the input, by name', (entry, why) => {
    const e = refused(() => withFile(`commands:\n  ${entry}\n`, ALLOW))
    expect(e.input).toBe(Inputs.Commands)
    expect(e.message).toMatch(why)
    expect(e.message.split('\n')).toHaveLength(1)
  })

  it('is bounded: 32 commands, 4096 characters each, a map; aliases and shown text refused or cut', () => {
    const many = Array.from({ length: 33 }, (_, i) => `  c${i}: python3 b.py`).join('\n')
    expect(refused(() => withFile(`commands:\n${many}\n`, ALLOW)).message).toMatch(
      /"\(config file\) 33 commands".*at most 32/
    )
    const long = `python3 ${'a'.repeat(4100)}`
    const e = refused(() => withFile(`commands:\n  mine: ${long}\n`, ALLOW))
    expect(e.message).toMatch(/at most 4096 characters/)
    expect(e.message.length).toBeLessThan(400)
    expect(refused(() => withFile('commands: [a, b]\n', ALLOW)).message).toMatch(/a map of NAME: COMMAND/)
    expect(refused(() => withFile('commands: "mine: python3 b.py"\n', ALLOW)).message).toMatch(/a map/)
    expect(refused(() => withFile('x: &c python3 b.py\ncommands:\n  mine: *c\n', ALLOW)).message).toMatch(
      /x is|alias|input name/
    )
    expect(refused(() => withFile('commands:\n  a: &c python3 b.py\n  b: *c\n', ALLOW)).message).toMatch(
      /no aliases/
    )
    // A long shell line in the tree is shown shortened and marked as the file's.
    const shell = `python3 ${'x'.repeat(300)} | tee log`
    const s = refused(() => withFile(`commands:\n  mine: ${shell}\n`, ALLOW))
    expect(s.message).toMatch(/got "\(config file\) mine: python3 x+…"/)
    expect(s.message).not.toContain('tee log')
  })

  it('a workflow command of the same name wins, and the log says so; each keeps its source', () => {
    const c = withFile('commands:\n  mine: python3 from-the-tree.py\n  theirs: python3 t.py\n', {
      ...ALLOW,
      [Inputs.Commands]: 'mine: python3 from-the-workflow.py'
    })
    expect(c.commands.map(x => [x.name, x.argv.join(' '), x.source])).toEqual([
      ['mine', 'python3 from-the-workflow.py', 'workflow'],
      ['theirs', 'python3 t.py', 'config-file']
    ])
    expect(c.overriddenCommands).toEqual(['mine'])
    const lines = commandSourceLines(c)
    expect(lines[0]).toMatch(
      /^command mine: the workflow's command of that name is used; the entry in .*gpu-overhead\.yml is ignored/
    )
    expect(lines[1]).toMatch(
      /^command theirs comes from the checked-out .*gpu-overhead\.yml \(allow-config-commands: true\): the pull request chose what it runs \(python3 t\.py\)/
    )
    expect(lines).toHaveLength(2)
  })

  it('command-formats names workflow commands; a config-file command sets its own format', () => {
    const e = refused(() =>
      withFile('commands:\n  theirs: python3 t.py\n', { ...ALLOW, [Inputs.CommandFormats]: 'theirs=wall' })
    )
    expect(e.input).toBe(Inputs.CommandFormats)
    expect(e.message).toMatch(/a config-file command sets its own: NAME: \{run: COMMAND, format: FORMAT\}/)
  })

  it('allow-config-commands is a trust setting: the file cannot set it', () => {
    const e = refused(() => withFile('allow-config-commands: true\ncommands:\n  mine: python3 b.py\n'))
    expect(e.input).toBe(Inputs.AllowConfigCommands)
    expect(e.message).toMatch(/workflow input or flag only/)
  })
})
