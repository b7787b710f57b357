/**
 * Differences between the two arms' stacks (library versions, build facts) and their environment
 * variables, each with what it means and how to fix it. Knowledge lives in execute's knowledge.ts;
 * nothing here names a particular variable.
 */
import type { ArmStack, Finding } from '../../types/index.js'
import {
  FACT_RULES,
  LIBRARY_SCOPED_ENV,
  UNKNOWN_FACT,
  diffFlat,
  envKnowledge,
  envOf,
  flatten,
  type Flat,
  type Knowledge
} from '../../execute/index.js'
import { GPU_SELECTION_ENV } from '../../tools/gpu-access.js'
import { JIT_CACHE_CONTAINER_DIR } from '../../launchers/index.js'
import { maxOf } from '../../util/arrays.js'
import { must } from '../../util/must.js'
import { namedSettings } from '../../util/setting-name.js'

function ruleFor(
  key: string,
  base: Flat,
  cand: Flat
): { ignore: boolean; label: string; knowledge: Knowledge } {
  const rule = FACT_RULES.find(r => r.pattern.test(key))
  if (rule?.ignore || rule?.digestOnly) return { ignore: true, label: key, knowledge: UNKNOWN_FACT }
  const knowledge = rule?.knowledge ?? UNKNOWN_FACT
  const matters = rule?.mattersIf ? rule.mattersIf(base, cand) : true
  return {
    ignore: false,
    label: rule?.label ?? key,
    knowledge: matters
      ? knowledge
      : { ...knowledge, impact: 0, meaning: `${knowledge.meaning} (not used here)` }
  }
}

export function imageEnvMap(env: Readonly<Record<string, string>> | undefined): Map<string, string> {
  return new Map(Object.entries(env ?? {}))
}

/** Findings of one workload's pair of stacks; merged across workloads by key afterwards. */
export function stackFindings(base: ArmStack, cand: ArmStack, image: Map<string, string>): Finding[] {
  const out: Finding[] = []
  const varies = new Set([...base.varies, ...cand.varies])
  const bf = flatten(base.facts)
  const cf = flatten(cand.facts)
  // Facts of one kind (every numpy.blas.* key, say) make one finding, shown by its most general
  // key (the shortest: numpy.blas.name before numpy.blas.build.version); the others are listed.
  const groups = new Map<
    string,
    {
      rule: ReturnType<typeof ruleFor>
      diffs: { key: string; baseline: string | null; candidate: string | null }[]
    }
  >()
  for (const d of diffFlat(bf, cf)) {
    const rule = ruleFor(d.key, bf, cf)
    if (rule.ignore || varies.has(d.key)) continue
    const label = rule.label === d.key ? d.key : rule.label
    const g = groups.get(label) ?? { rule, diffs: [] }
    g.diffs.push(d)
    groups.set(label, g)
  }
  for (const [label, { rule, diffs }] of groups) {
    const [first, ...rest] = [...diffs].sort(
      (a, b) => a.key.length - b.key.length || a.key.localeCompare(b.key)
    )
    const main = must(first, 'a group is made with its first difference')
    out.push({
      kind: 'stack',
      key: main.key,
      label: label === main.key ? label : `${label} (${main.key})`,
      baseline: main.baseline,
      candidate: main.candidate,
      impact: maxOf(diffs.map(d => ruleFor(d.key, bf, cf).knowledge.impact)) as Finding['impact'],
      domains: [...rule.knowledge.domains],
      explains: [],
      workloads: [base.workload],
      meaning: rule.knowledge.meaning,
      fix: namedSettings(rule.knowledge.fix),
      relevant: false,
      ...(rest.length ? { also: rest.map(d => d.key) } : {})
    })
  }
  const be = envOf(base.facts)
  const ce = envOf(cand.facts)
  for (const name of [...new Set([...be.keys(), ...ce.keys()])].sort()) {
    // GPU selection: this tool sets it for the native arm; the container gets it by device flags.
    if ((GPU_SELECTION_ENV as readonly string[]).includes(name)) continue
    const x = be.get(name) ?? null
    const y = ce.get(name) ?? null
    if (x === y) continue
    // The JIT cache this tool keeps for a container arm (execute/run-folders.ts): its own setting, reported
    // with the start-up (report/startup.ts), not a difference of the image's.
    if (name === 'CUDA_CACHE_PATH' && (x === JIT_CACHE_CONTAINER_DIR || y === JIT_CACHE_CONTAINER_DIR))
      continue
    const k = envScoped(name, x === null ? cf : bf, envKnowledge(name))
    out.push({
      kind: 'env',
      key: `env:${name}`,
      label: name,
      baseline: x,
      candidate: y,
      impact: k.impact,
      domains: [...k.domains],
      explains: [],
      workloads: [base.workload],
      meaning: k.meaning,
      fix: namedSettings(k.fix),
      relevant: false,
      ...(y !== null && image.get(name) === y ? { from_image_env: true } : {})
    })
  }
  return out
}

/** A library's variable where the arm that sets it has not loaded that library: no effect. */
function envScoped(name: string, setIn: Flat, k: Knowledge): Knowledge {
  const scope = LIBRARY_SCOPED_ENV.find(l => l.prefixes.some(p => name.startsWith(p)))
  if (!scope) return k
  const blas = [setIn.get('numpy.blas.name'), setIn.get('libraries.blas')].filter((v): v is string => !!v)
  if (blas.length === 0 || blas.some(v => scope.library.test(v))) return k
  return { ...k, impact: 0, meaning: `${k.meaning} (that library is not loaded in the arm that sets it)` }
}
