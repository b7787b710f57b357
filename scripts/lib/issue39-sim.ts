/**
 * Issue 39's rows of scripts/simulate-verdicts.ts, one generator per defect fixed in the stored-baseline path
 * and the CSV reader (README, "Verdict error rates"):
 * - S1: two arms, each at exactly +2% against its own stored checks (5 × 5 runs), one report: exit 1 rate.
 * - S6: 4 good stored checks and one accepted +5% check, then 10 later +5% checks through the production entry
 *   (compared, saved when the rule allows): how many are saved, called equivalent (4th on) or flagged.
 * - S11: 5 good stored checks, then 10 checks that creep +0.5% each (+5% at the 10th), saved when allowed:
 *   flagged by the 10th, and how far the rolling reference moved from the anchor; A/A from the same start.
 * - S7: two checks of 12 runs per arm, one row per run (no iteration column), concatenated into one CSV:
 *   refused, or (before) read as one check whose merged runs decide.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import seedrandom from 'seedrandom'
import { compareWithBaseline } from '../../src/analyze/baseline/index.js'
import type { BaselineStore } from '../../src/analyze/baseline/store.js'
import type { ArmSeries } from '../../src/results/run-values/index.js'
import { analyzeCommand } from '../../src/commands/analyze.js'
import { InputError } from '../../src/util/errors.js'
import { memoryStore } from './baseline-sim.js'

const MAX = 2
const ALPHA = 0.05
const RUNS = 5
const RUN_SD = 0.005
const DAY_SDS = [0.0025, 0.005, 0.01, 0.02]

export interface Issue39Rows {
  md: string[]
  json: Record<string, unknown>
}

/** One generator per defect, each with its own seed. */
export function generator(seed: string) {
  const rng = seedrandom.alea(seed)
  const normal = (): number => {
    let u = 0
    while (u === 0) u = rng()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng())
  }
  let id = 0
  const fingerprint = { gpu_name: 'sim', driver: '1' }
  const checkValues = (daySd: number, factor: number): number[] => {
    const day = 1 + daySd * normal()
    return Array.from({ length: RUNS }, () => 41 * factor * day * (1 + RUN_SD * normal()))
  }
  const series = (env: string, values: number[]): ArmSeries => ({
    workload: 'sim',
    params: '',
    metric: 'kernel_ms',
    environment: env,
    unit: 'ms',
    better: 'lower',
    scope: 'steady',
    runs: values.map((_, i) => String(i + 1)),
    values,
    iterations: values.map(() => 1)
  })
  /** Accepted checks at the given levels (stored whatever a comparison would have said). */
  async function history(daySd: number, factors: number[], envs = ['native']): Promise<BaselineStore> {
    const store = memoryStore()
    for (const f of factors)
      await store.append({
        check_id: `stored-${++id}`,
        series: envs.map(env => series(env, checkValues(daySd, f))),
        fingerprints: Object.fromEntries(envs.map(env => [env, fingerprint]))
      })
    return store
  }
  /** One check through the production entry. */
  function check(store: BaselineStore, daySd: number, factor: number, envs = ['native'], save = true) {
    const checkId = `check-${++id}`
    const rows = envs.flatMap(env =>
      checkValues(daySd, factor).map((value, i) => ({
        check_id: checkId,
        workload: 'sim',
        environment: env,
        run: i + 1,
        metric: 'kernel_ms',
        value,
        unit: 'ms',
        better: 'lower',
        scope: 'steady',
        fingerprint
      }))
    )
    return compareWithBaseline(rows as never, {
      path: 'memory',
      store,
      save,
      maxOverheadPct: MAX,
      alpha: ALPHA
    })
  }
  return { rng, normal, history, check }
}

const pct = (k: number, n: number): string => `${((100 * k) / n).toFixed(1)}%`
const sdCell = (d: number): string => `${(d * 100).toFixed(2)}%`

export async function simulateIssue39(sims: number, log: (line: string) => void): Promise<Issue39Rows> {
  const md: string[] = []
  const json: Record<string, unknown> = {}

  // ---- S1 ----
  {
    const g = generator('issue-39-S1')
    const rows: unknown[] = []
    md.push(
      `S1 — two arms, each at exactly +${MAX}% against its own ${RUNS} stored checks × ${RUNS} runs (run sd ${RUN_SD * 100}%), one report, ${sims} simulations per row:`,
      '',
      '| day-to-day sd | exit 1 (either arm a regression) |',
      '| --: | --: |'
    )
    for (const daySd of DAY_SDS) {
      let failed = 0
      for (let i = 0; i < sims; i++) {
        const envs = ['native', 'container']
        const store = await g.history(daySd, [1, 1, 1, 1, 1], envs)
        const r = await g.check(store, daySd, 1 + MAX / 100, envs, false)
        if (r.comparisons.some(c => c.verdict === 'regression')) failed++
      }
      md.push(`| ${sdCell(daySd)} | ${pct(failed, sims)} |`)
      rows.push({ day_sd: daySd, exit_1: failed / sims })
      log(`issue 39 S1: day sd ${daySd} done`)
    }
    json.s1_two_arms_at_threshold = rows
  }

  // ---- S6 ----
  {
    const g = generator('issue-39-S6')
    const LATER = 10
    const rows: unknown[] = []
    md.push(
      '',
      `S6 — a persisting +5%: 4 good stored checks and one accepted +5% check, then ${LATER} later +5% checks through the production entry (saved when the rule allows, last 5 kept); ${sims} histories per row:`,
      '',
      '| day-to-day sd | later +5% checks saved | called equivalent (4th later check on) | flagged |',
      '| --: | --: | --: | --: |'
    )
    for (const daySd of DAY_SDS) {
      let saved = 0
      let equivalent = 0
      let flagged = 0
      for (let i = 0; i < sims; i++) {
        const store = await g.history(daySd, [1, 1, 1, 1, 1.05])
        for (let j = 0; j < LATER; j++) {
          const r = await g.check(store, daySd, 1.05)
          if (r.saved) saved++
          if (j >= 3 && r.comparisons.some(c => c.verdict === 'equivalent')) equivalent++
          if (r.comparisons.some(c => c.verdict === 'regression')) flagged++
        }
      }
      const n = sims * LATER
      md.push(
        `| ${sdCell(daySd)} | ${pct(saved, n)} | ${pct(equivalent, sims * (LATER - 3))} | ${pct(flagged, n)} |`
      )
      rows.push({
        day_sd: daySd,
        saved: saved / n,
        equivalent_from_4th: equivalent / (sims * (LATER - 3)),
        flagged: flagged / n
      })
      log(`issue 39 S6: day sd ${daySd} done`)
    }
    json.s6_persisting_shift = rows
  }

  // ---- S11 ----
  {
    const g = generator('issue-39-S11')
    const rows: unknown[] = []
    md.push(
      '',
      `S11 — a creep of +0.5% per check: 5 good stored checks, then 10 checks at +0.5%, +1%, … +5% (saved when the rule allows), and the same start with 10 A/A checks; ${sims} histories per row:`,
      '',
      '| day-to-day sd | creep flagged by the 10th check | reference moved from the anchor at the 10th (mean) | A/A false regression (per check) |',
      '| --: | --: | --: | --: |'
    )
    for (const daySd of DAY_SDS) {
      let flagged = 0
      let moved = 0
      let aa = 0
      for (let i = 0; i < sims; i++) {
        const store = await g.history(daySd, [1, 1, 1, 1, 1])
        let hit = false
        for (let j = 1; j <= 10; j++) {
          const r = await g.check(store, daySd, 1 + 0.005 * j)
          if (r.comparisons.some(c => c.verdict === 'regression')) hit = true
          if (j === 10) moved += r.comparisons.find(c => c.history?.anchor)?.history?.anchor?.moved_pct ?? 0
        }
        if (hit) flagged++
        const clean = await g.history(daySd, [1, 1, 1, 1, 1])
        for (let j = 1; j <= 10; j++)
          if ((await g.check(clean, daySd, 1)).comparisons.some(c => c.verdict === 'regression')) aa++
      }
      md.push(
        `| ${sdCell(daySd)} | ${pct(flagged, sims)} | ${(moved / sims >= 0 ? '+' : '') + (moved / sims).toFixed(2)}% | ${pct(aa, sims * 10)} |`
      )
      rows.push({
        day_sd: daySd,
        flagged_by_10th: flagged / sims,
        moved_pct: moved / sims,
        aa_false_regression: aa / (sims * 10)
      })
      log(`issue 39 S11: day sd ${daySd} done`)
    }
    json.s11_creep = rows
  }

  // ---- S7 ----
  {
    const g = generator('issue-39-S7')
    const dir = mkdtempSync(join(tmpdir(), 'issue-39-s7-'))
    const files = Math.min(sims, 200)
    let refused = 0
    let regression = 0
    try {
      for (let i = 0; i < files; i++) {
        const lines = ['workload,environment,run,metric,value,unit,better']
        // Two checks, each with its own host level and a container overhead of 0–5%.
        for (let c = 0; c < 2; c++) {
          const day = 1 + 0.02 * g.normal()
          const factor = 1 + 0.05 * g.rng()
          for (let r = 1; r <= 12; r++) {
            const host = day * (1 + 0.003 * g.normal())
            lines.push(
              `sim,native,${r},kernel_ms,${(41 * host * (1 + 0.002 * g.normal())).toFixed(5)},ms,lower`
            )
            lines.push(
              `sim,container,${r},kernel_ms,${(41 * factor * host * (1 + 0.002 * g.normal())).toFixed(5)},ms,lower`
            )
          }
        }
        const file = join(dir, `two-checks-${i}.csv`)
        writeFileSync(file, lines.join('\n') + '\n')
        try {
          const r = await analyzeCommand({ input: file, format: 'json', maxOverheadPct: MAX, alpha: ALPHA })
          if (r.analysis.verdict === 'regression') regression++
        } catch (error) {
          if (error instanceof InputError) refused++
          else throw error
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    md.push(
      '',
      `S7 — two checks of 12 runs per arm, one row per run (no iteration column), concatenated into one CSV; ${files} files:`,
      '',
      '| refused (exit 2, naming the run) | read as one check, a regression (exit 1) |',
      '| --: | --: |',
      `| ${pct(refused, files)} | ${pct(regression, files)} |`
    )
    json.s7_concatenated_csv = { files, refused: refused / files, regression: regression / files }
    log('issue 39 S7 done')
  }
  return { md, json }
}
