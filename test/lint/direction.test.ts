/**
 * The pipeline's direction is enforced by ESLint (eslint.config.mjs, DIRECTION_RULES). These lint fixture
 * texts as if they were files in src/, so a rule that silently stopped matching fails here.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ESLint } from 'eslint'

const ROOT = path.resolve(import.meta.dirname, '../..')
const FIX = path.join(ROOT, 'test/__fixtures__/lint')

// One engine for every case, with only the two rules under test and no type information: building the
// type-aware project took ~8 s of this file's 12 on 2 cores, and neither rule reads types. `npm run lint` runs
// every rule with types over the real tree.
const RULES = new Set(['no-restricted-imports', 'no-restricted-syntax'])
const eslint = new ESLint({
  cwd: ROOT,
  ruleFilter: ({ ruleId }) => RULES.has(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } }
})

async function lintAs(fixture: string, srcFile: string): Promise<ESLint.LintResult> {
  const text = readFileSync(path.join(FIX, fixture), 'utf8')
  const [result] = await eslint.lintText(text, { filePath: path.join(ROOT, srcFile) })
  return result!
}

function restricted(result: ESLint.LintResult): string[] {
  return result.messages.filter(m => m.ruleId === 'no-restricted-imports').map(m => m.message)
}

describe('stage direction (no-restricted-imports)', () => {
  it('fails config/ importing a later stage', async () => {
    const r = await lintAs('config-imports-report.txt', 'src/config/config.ts')
    expect(restricted(r)).toEqual([expect.stringMatching(/config\/ may not import a later stage/)])
    expect(r.errorCount).toBeGreaterThan(0)
  })

  it('fails a stage reaching past another stage’s index.ts', async () => {
    const r = await lintAs('report-deep-import.txt', 'src/report/markdown.ts')
    expect(restricted(r)).toEqual([expect.stringMatching(/only through its index\.ts/)])
  })

  it('fails a stage below report/ importing the GitHub toolkit', async () => {
    const r = await lintAs('analyze-talks-to-github.txt', 'src/analyze/index.ts')
    expect(restricted(r)).toEqual([expect.stringMatching(/Only report\/.*talk to GitHub/)])
  })

  it('passes the same kind of imports in the allowed direction', async () => {
    const r = await lintAs('execute-imports-earlier.txt', 'src/execute/runner.ts')
    expect(r.messages).toEqual([])
  })

  it('the bad config/ import passes where the direction allows it (gate/ may import report/)', async () => {
    const r = await lintAs('config-imports-report.txt', 'src/gate/index.ts')
    expect(restricted(r)).toEqual([])
  })
})

describe('one table builder (no-restricted-syntax)', () => {
  const syntax = (r: ESLint.LintResult): string[] =>
    r.messages.filter(m => m.ruleId === 'no-restricted-syntax').map(m => m.message)

  it('fails markdown-table outside report/table.ts', async () => {
    const r = await lintAs('table-outside-builder.txt', 'src/fleet/markdown.ts')
    expect(syntax(r)).toEqual([expect.stringMatching(/^Build markdown tables with report\/table\.ts/)])
  })

  it('passes it in report/table.ts', async () => {
    const r = await lintAs('table-outside-builder.txt', 'src/report/table.ts')
    expect(syntax(r)).toEqual([])
  })
})
