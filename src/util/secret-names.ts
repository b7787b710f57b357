/**
 * Which names hold a secret (an environment variable, a workload parameter, a `--flag`): one rule for the
 * tool and the workloads. The words are kept in workloads/secret_names.json, which workloads/_secrets.py
 * reads; they are repeated here because the bundle cannot read a file beside the workloads, and
 * test/util/secret-names.test.ts keeps the two equal (and runs both on the same names).
 */
export const SECRET_NAME_RULE = {
  contains: ['SECRET', 'PASSW', 'CREDENTIAL', 'AUTH', 'APIKEY', 'API_KEY', 'PRIVATE_KEY', 'PRIVATEKEY'],
  words: ['PAT', 'PEM', 'PASS', 'PASSPHRASE', 'COOKIE', 'CRED', 'CREDS'],
  word_ends: ['TOKEN', 'KEY', 'PWD'],
  not_secret: ['PWD', 'OLDPWD']
} as const

const WORDS = new Set<string>(SECRET_NAME_RULE.words)

/**
 * True when `name` says it holds a secret (case-insensitive): it contains one of `contains`, or one of its
 * words (split at every character that is not a letter or digit) is in `words` or ends with one of
 * `word_ends`. `NVIDIA_NGC_PAT`, `db-pwd`, `hf_token` are; `PATH`, `output_tokens` are not.
 */
export function isSecretName(name: string): boolean {
  const up = name.toUpperCase()
  // The working folder (PWD, OLDPWD) ends in PWD but is no password: masking it would hide every path.
  if ((SECRET_NAME_RULE.not_secret as readonly string[]).includes(up)) return false
  if (SECRET_NAME_RULE.contains.some(c => up.includes(c))) return true
  return up
    .split(/[^A-Z0-9]+/)
    .some(w => w !== '' && (WORDS.has(w) || SECRET_NAME_RULE.word_ends.some(e => w.endsWith(e))))
}
