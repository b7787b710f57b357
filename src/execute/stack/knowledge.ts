/**
 * What a difference between the arms' stacks can do, and how to fix it: the shape of one piece of
 * knowledge and the words the tables share. The tables: env-knowledge.ts (known environment variables
 * and their families), fact-rules.ts (the stack facts the workloads record, workloads/_stack.py). The
 * explainer ranks by these fields only — no variable is special-cased in code, so an unknown one still
 * ranks by its family.
 */
import { DOMAINS, type Domain, type Impact } from '../../types/index.js'

export interface Knowledge {
  impact: Impact
  domains: readonly Domain[]
  meaning: string
  fix: string
}

export const GPU: readonly Domain[] = ['gpu-compute']
export const CPU: readonly Domain[] = ['cpu-compute']
export const ALL: readonly Domain[] = DOMAINS
export const COMPUTE: readonly Domain[] = ['gpu-compute', 'cpu-compute', 'launch']
export const COMM: readonly Domain[] = ['comm']
export const HOST_MEMORY: readonly Domain[] = ['cpu-compute', 'memory']

export const SAME_ENV = 'set it the same way in both arms (image ENV or the workflow env), or remove it'
const DEBUG_ONLY = 'unset it outside debugging'
const NONE_NEEDED = 'none needed'

/** A setting that changes how the `domains` work; by default the fix is to set it alike in both arms. */
export function acts(impact: Impact, domains: readonly Domain[], meaning: string, fix = SAME_ENV): Knowledge {
  return { impact, domains, meaning, fix }
}

/** A debugging switch (logging, extra checks): it slows what it touches. */
export function debugging(impact: Impact, domains: readonly Domain[], meaning: string): Knowledge {
  return acts(impact, domains, meaning, DEBUG_ONLY)
}

/** A declaration for tools or humans (an image label, a build-time path): the process ignores it. */
export function inert(meaning: string): Knowledge {
  return { impact: 0, domains: [], meaning, fix: NONE_NEEDED }
}
