import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/**
 * The pipeline's direction (issue 15): a stage imports only stages before it — through their index.ts —
 * plus types/, util/ and tools/. fleet/ merges finished checks (any stage); check.ts wires the stages;
 * entry/ may import anything. Nothing below report/ talks to GitHub or reads action inputs. results/ (the
 * record writer, and the result formats read into run values) comes before execute/, which reads a user
 * command's result file as it records the run.
 */
const STAGES = ['config', 'preflight', 'plan', 'results', 'execute', 'analyze', 'report', 'gate']
const LAYERS = [...STAGES, 'fleet']
const UP = '^(?:\\.\\./)+'
const alt = names => `(?:${names.join('|')})`
const ORDER_HINT = `${STAGES.join(' → ')}; a stage may import only earlier stages, types/, util/ and tools/`

function stageRules(name, earlier, later) {
  const patterns = [
    {
      regex: `${UP}${alt([...later, 'entry', 'check\\.js$'])}(?:/|$)`,
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
            regex: `${UP}${alt([...LAYERS, 'entry', 'types', 'util', 'tools', 'check\\.js$'].filter(d => d !== dir && !may.includes(d)))}(?:/|$)`,
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
    files: ['src/check.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\./(?:entry|fleet)(?:/|$)', message: 'check.ts wires stages; entry points call it.' },
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

const NO_SPREAD = {
  selector: 'CallExpression > SpreadElement, NewExpression > SpreadElement',
  message:
    'No spread into a call (stack overflow on large arrays): use appendAll/maxOf/minOf from util/arrays.ts.'
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
    // Spreading an array into a call passes each element as an argument: at ~10^5 elements (a long
    // workload's samples) it overflows the stack. util/arrays.ts has appendAll, maxOf, minOf.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', NO_SPREAD, ...ONE_LOG_PATH, ONE_TABLE_BUILDER]
    }
  },
  {
    // util/log.ts is the one path to the log and the terminal (it sanitises every line).
    files: ['src/util/log.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_SPREAD, ONE_TABLE_BUILDER] }
  },
  {
    // The one table builder.
    files: ['src/report/table.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_SPREAD, ...ONE_LOG_PATH] }
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
