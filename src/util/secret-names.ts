/**
 * Which names hold a secret (an environment variable, a workload parameter, a `--flag`): one rule for the
 * tool and the workloads, kept in workloads/secret_names.json, which workloads/_secrets.py reads too.
 */
import rule from '../../workloads/secret_names.json' with { type: 'json' }

const CONTAINS: readonly string[] = rule.contains
const WORDS = new Set<string>(rule.words)
const WORD_ENDS: readonly string[] = rule.word_ends

/** True when `name` says it holds a secret (case-insensitive): `NVIDIA_NGC_PAT`, `db-pwd`, `hf_token`. */
export function isSecretName(name: string): boolean {
  const up = name.toUpperCase()
  if (CONTAINS.some(c => up.includes(c))) return true
  return up.split(/[^A-Z0-9]+/).some(w => w !== '' && (WORDS.has(w) || WORD_ENDS.some(e => w.endsWith(e))))
}
