/** The example workflows use only inputs the action declares, and each baseline store's permissions fit it. */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parse } from 'yaml'

interface Step {
  uses?: string
  with?: Record<string, unknown>
}
interface Workflow {
  on: Record<string, unknown>
  permissions?: Record<string, string>
  jobs: Record<string, { steps: Step[]; permissions?: Record<string, string> }>
}

const DIR = 'examples/workflows'
const inputs = Object.keys((parse(fs.readFileSync('action.yml', 'utf8')) as { inputs: object }).inputs)
const workflows = fs
  .readdirSync(DIR)
  .filter(f => f.endsWith('.yml'))
  .map(f => [f, parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as Workflow] as const)
const actionSteps = (w: Workflow): Step[] =>
  Object.values(w.jobs).flatMap(j => j.steps.filter(s => s.uses?.startsWith('org/gpu-overhead-action')))

describe('example workflows', () => {
  it.each(workflows)('%s uses only declared inputs', (_f, w) => {
    const used = actionSteps(w).flatMap(s => Object.keys(s.with ?? {}))
    expect(used.filter(i => !inputs.includes(i))).toEqual([])
  })

  it('the branch store: PR runs read it (contents: read), the main-branch run writes it', () => {
    const byName = Object.fromEntries(workflows)
    const pr = byName['pr-gate.yml']!
    const update = byName['baseline-update.yml']!
    expect(Object.keys(pr.on)).toEqual(['pull_request'])
    expect(pr.permissions?.contents).toBe('read')
    expect(Object.keys(update.on)).not.toContain('pull_request')
    expect(update.permissions?.contents).toBe('write')
    const saving = actionSteps(update)[0]?.with ?? {}
    expect(saving['save-baseline']).toBe(true)
    expect(saving['baseline-branch']).toBe(actionSteps(pr)[0]?.with?.['baseline-branch'])
  })

  it('the nightly saves accepted nights and runs the trend with issues it may write', () => {
    const nightly = Object.fromEntries(workflows)['nightly-image-bump.yml']!
    const [check, trend] = actionSteps(nightly)
    expect(Object.keys(nightly.on)).not.toContain('pull_request')
    expect(check?.with?.['save-baseline']).toBe(true)
    expect(trend?.with).toMatchObject({ mode: 'trend', 'trend-issues': true })
    expect(nightly.permissions).toMatchObject({ contents: 'write', issues: 'write' })
  })

  it.each(workflows)(
    '%s grants checks: write wherever a check makes its Check run (input check-run)',
    (_f, w) => {
      for (const job of Object.values(w.jobs)) {
        const checks = job.steps.filter(
          s =>
            s.uses?.startsWith('org/gpu-overhead-action') &&
            // Both modes publish a Check run (mode analyze as a check does: report/github.ts).
            [undefined, 'check', 'analyze'].includes(s.with?.mode as string | undefined) &&
            s.with?.['check-run'] !== ''
        )
        if (checks.length) expect((job.permissions ?? w.permissions)?.checks).toBe('write')
      }
    }
  )

  // The moving major tag release.mjs makes (v1), or a full commit SHA: never a branch or a partial SHA.
  const PINNED = /^(v1|[0-9a-f]{40})$/
  it.each(workflows)('%s pins the action to v1 or a full commit SHA', (_f, w) => {
    const refs = actionSteps(w).map(s => s.uses!.split('@')[1])
    expect(refs.length).toBeGreaterThan(0)
    for (const ref of refs) expect(ref).toMatch(PINNED)
  })

  it("the README's first workflow pins v1 or a commit SHA too", () => {
    const readme = fs.readFileSync('README.md', 'utf8')
    const uses = [...readme.matchAll(/uses: org\/gpu-overhead-action@(\S+)/g)].map(m => m[1])
    expect(uses.length).toBeGreaterThan(0)
    for (const ref of uses) expect(ref).toMatch(PINNED)
  })

  it('the file store turns the branch off', () => {
    const file = Object.fromEntries(workflows)['pr-gate-file-baseline.yml']!
    expect(actionSteps(file)[0]?.with?.['baseline-branch']).toBe('')
  })
})
