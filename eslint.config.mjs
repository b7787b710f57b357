import * as fs from 'node:fs'
import * as path from 'node:path'
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/**
 * The pipeline's direction (issue 15): a stage imports only stages before it — through their index.ts —
 * plus types/, util/ and tools/. fleet/ merges finished checks (any stage); check.ts wires the stages;
 * commands/ holds one module per mode (check, analyze, trend, aggregate, gate, io-check) over the stages,
 * fleet/ and check.ts, and talks to no GitHub API; entry/ only adapts them (argv or INPUT_*, outputs, exit)
 * and may import anything. Nothing below report/ talks to GitHub or reads action inputs. results/ (the
 * record writer, and the result formats read into run values) comes before execute/, which reads a user
 * command's result file as it records the run. launchers/ (issue 54: native, docker, podman, one registry) comes
 * first: config validates an arm's launcher by name, preflight and execute start processes through it.
 */
const STAGES = ['launchers', 'config', 'preflight', 'plan', 'results', 'execute', 'analyze', 'report', 'gate']
const LAYERS = [...STAGES, 'fleet', 'commands']
const UP = '^(?:\\.\\./)+'
// check.ts and the files it is split into (check-runs.ts, check-steps.ts).
const CHECK_FILES = 'check(?:-[a-z]+)?\\.js$'
const alt = names => `(?:${names.join('|')})`
const ORDER_HINT = `${STAGES.join(' → ')}; a stage may import only earlier stages, types/, util/ and tools/`

function stageRules(name, earlier, later) {
  // The commands run the whole check through check.ts; every stage below it must not.
  const above = name === 'commands' ? ['entry'] : ['entry', CHECK_FILES]
  const patterns = [
    {
      regex: `${UP}${alt([...later, ...above])}(?:/|$)`,
      message: `${name}/ may not import a later stage or an entry point (${ORDER_HINT}).`
    }
  ]
  if (earlier.length)
    patterns.push({
      regex: `${UP}${alt(earlier)}/(?!index\\.js$)`,
      message: 'Import another stage only through its index.ts (its public face).'
    })
  const paths = name === 'report' || name === 'gate' || name === 'fleet' ? [] : GITHUB_ONLY
  return {
    files: [`src/${name}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns, paths }] }
  }
}

const GITHUB_ONLY = ['@actions/core', '@actions/artifact', '@actions/github'].map(name => ({
  name,
  message: 'Only report/ (and the entry points) talk to GitHub; log through util/log.ts.'
}))

const BASE_RULES = [
  { dir: 'types', may: [] },
  { dir: 'util', may: ['types'] },
  { dir: 'tools', may: ['types', 'util'] }
].map(({ dir, may }) => ({
  files: [`src/${dir}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `${UP}${alt([...LAYERS, 'entry', 'types', 'util', 'tools', CHECK_FILES].filter(d => d !== dir && !may.includes(d)))}(?:/|$)`,
            message: `${dir}/ is below every stage: it may import only ${may.length ? may.join(', ') : 'libraries'}.`
          }
        ],
        paths: dir === 'util' ? [] : GITHUB_ONLY
      }
    ]
  }
}))

export const DIRECTION_RULES = [
  ...LAYERS.map((name, i) => stageRules(name, LAYERS.slice(0, i), LAYERS.slice(i + 1))),
  ...BASE_RULES,
  {
    files: ['src/check.ts', 'src/check-*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\./(?:entry|fleet|commands)(?:/|$)',
              message: 'check.ts wires stages; the check command (commands/check.ts) calls it.'
            },
            {
              regex: `^\\./${alt(STAGES)}/(?!index\\.js$)`,
              message: 'Import a stage only through its index.ts.'
            }
          ]
        }
      ]
    }
  }
]

/**
 * No import cycle in src/ (issue 44), type-only imports included: each file's relative imports, read from
 * the files on disk once per run, and its strongly connected components (Tarjan); an import whose target is
 * in its own file's component is reported with the cycle it closes.
 */
const SRC = path.join(import.meta.dirname, 'src')
const IMPORT_FROM = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g

function resolveImport(from, spec) {
  const target = path.resolve(path.dirname(from), spec)
  for (const candidate of [target.replace(/\.js$/, '.ts'), target, path.join(target, 'index.ts')])
    if (candidate.endsWith('.ts') && fs.existsSync(candidate)) return candidate
  return null
}

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(d => {
    const full = path.join(dir, d.name)
    return d.isDirectory() ? sourceFiles(full) : d.name.endsWith('.ts') ? [full] : []
  })
}

let components = null
function componentOf() {
  if (components) return components
  const edges = new Map(
    sourceFiles(SRC).map(file => {
      const text = fs.readFileSync(file, 'utf8')
      const targets = [...text.matchAll(IMPORT_FROM)].map(m => resolveImport(file, m[1])).filter(Boolean)
      return [file, [...new Set(targets)]]
    })
  )
  components = new Map()
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const visit = file => {
    index.set(file, index.size)
    low.set(file, index.get(file))
    stack.push(file)
    onStack.add(file)
    for (const next of edges.get(file) ?? []) {
      if (!edges.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file), low.get(next)))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), index.get(next)))
    }
    if (low.get(file) !== index.get(file)) return
    const members = new Set()
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      members.add(member)
    } while (member !== file)
    if (members.size > 1) for (const m of members) components.set(m, members)
  }
  for (const file of edges.keys()) if (!index.has(file)) visit(file)
  return components
}

const NO_IMPORT_CYCLE = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { cycle: 'Import cycle: {{files}}. Move what both need into one of them, or below both.' }
  },
  create(context) {
    const file = context.filename
    const members = componentOf().get(file)
    if (!members) return {}
    const check = node => {
      const target = node.source ? resolveImport(file, String(node.source.value)) : null
      if (target && members.has(target))
        context.report({
          node,
          messageId: 'cycle',
          data: { files: [...members].map(m => path.relative(SRC, m)).join(', ') }
        })
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check }
  }
}

const NO_SPREAD = {
  selector: 'CallExpression > SpreadElement, NewExpression > SpreadElement',
  message:
    'No spread into a call (stack overflow on large arrays): use appendAll/maxOf/minOf from util/arrays.ts.'
}

// Node's JS realpath lstat()s and then readlink()s each component: a tree swapped between the two throws a raw
// EINVAL instead of an answer. libc's realpath (.native) reads each link once.
const NATIVE_REALPATH = {
  selector: "CallExpression[callee.object.name='fs'][callee.property.name='realpathSync']",
  message: 'Use fs.realpathSync.native: the JS realpath races with a tree swapped under it (raw EINVAL).'
}

// Log lines and terminal output carry untrusted text: only util/log.ts (through util/text.ts logText)
// writes them, so no line can start a workflow command or carry a control character.
const ONE_LOG_PATH = [
  {
    selector:
      "CallExpression[callee.object.name='core'][callee.property.name=/^(info|warning|error|notice|debug|setFailed)$/]",
    message: 'Log through util/log.ts (actionsLogger, annotateLog, failStep): it sanitises every line.'
  },
  {
    selector:
      "CallExpression[callee.property.name='write'][callee.object.object.name='process'][callee.object.property.name=/^std(out|err)$/]",
    message: 'Write to the terminal through util/log.ts (writeOut, writeErr): it sanitises every line.'
  }
]

// Published tables: report/table.ts alone builds them, escaping each cell for a cell (util/text.ts mdTableCell);
// a value escaped for a table everywhere shows a stray backslash in a list or prose.
const ONE_TABLE_BUILDER = {
  selector: "ImportDeclaration[source.value='markdown-table']",
  message:
    'Build markdown tables with report/table.ts (table, rawTable): it escapes every cell for a table (mdTableCell).'
}

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'build/',
      'coverage/',
      '.gpu-host/',
      'docs/',
      '*.config.*',
      'scripts/',
      'workloads/'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error'
    }
  },
  ...DIRECTION_RULES,
  {
    files: ['src/**/*.ts'],
    plugins: { house: { rules: { 'no-import-cycle': NO_IMPORT_CYCLE } } },
    rules: { 'house/no-import-cycle': 'error' }
  },
  {
    // Spreading an array into a call passes each element as an argument: at ~10^5 elements (a long
    // workload's samples) it overflows the stack. util/arrays.ts has appendAll, maxOf, minOf.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', NO_SPREAD, NATIVE_REALPATH, ...ONE_LOG_PATH, ONE_TABLE_BUILDER]
    }
  },
  {
    // util/log.ts is the one path to the log and the terminal (it sanitises every line).
    files: ['src/util/log.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_SPREAD, NATIVE_REALPATH, ONE_TABLE_BUILDER] }
  },
  {
    // The one table builder.
    files: ['src/report/table.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_SPREAD, NATIVE_REALPATH, ...ONE_LOG_PATH] }
  },
  {
    // No `x!` (issue 44): a guarantee is read through util/must.ts, which throws an InternalError if it breaks.
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'error' }
  },
  {
    // Small modules and functions (issue 44): a file over 350 lines or a function over 80 is split at its seams.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 350 }],
      'max-lines-per-function': ['error', { max: 80 }]
    }
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off'
    }
  }
)
