/**
 * Secrets (issue 29, class 7): one secret-name rule for TypeScript and the Python workloads, children that
 * never get the runner's tokens or secret-named variables, and secret values masked in what is written.
 */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { SECRET_NAME_RULE, isSecretName } from '../../src/util/secret-names.js'
import { runtimeClientEnv, scrubbedEnv } from '../../src/util/child-env.js'
import { execCapture } from '../../src/util/exec.js'
import { clearSecrets, redact, registerEnvSecrets } from '../../src/util/secrets.js'
import { buildReport } from '../../src/report/markdown.js'
import { regression } from '../__fixtures__/summaries/index.js'

const SECRET_NAMES = [
  'NVIDIA_NGC_PAT',
  'NVIDIA_APIKEY',
  'CUDA_PASSWD',
  'DEPLOY_PRIVATE_KEY_PEM',
  'CUDA_PRIVATE_KEY_PEM',
  'DB_PWD',
  'NVIDIA_PWD',
  'GITHUB_TOKEN',
  'HF_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  '--api-key',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN'
]
const PLAIN_NAMES = [
  'PATH',
  'PWD',
  'OLDPWD',
  'LD_LIBRARY_PATH',
  'PYTHONPATH',
  'CUDA_VISIBLE_DEVICES',
  'NVIDIA_DRIVER_CAPABILITIES',
  'output_tokens',
  'OMP_NUM_THREADS',
  'PATCH_LEVEL'
]
const RUNNER_TOKENS = [
  'GITHUB_TOKEN',
  'INPUT_GITHUB-TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN'
]
const VALUE = 'nvapi-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'

afterEach(() => clearSecrets())

describe('one secret-name rule', () => {
  test('TypeScript: secret-shaped names, and ordinary ones left alone', () => {
    for (const n of SECRET_NAMES) expect([n, isSecretName(n)]).toEqual([n, true])
    for (const n of PLAIN_NAMES) expect([n, isSecretName(n)]).toEqual([n, false])
  })

  test('the words are the ones in workloads/secret_names.json, which the Python side reads', () => {
    const file = JSON.parse(fs.readFileSync('workloads/secret_names.json', 'utf8')) as Record<string, unknown>
    expect({
      contains: file.contains,
      words: file.words,
      word_ends: file.word_ends,
      not_secret: file.not_secret
    }).toEqual(SECRET_NAME_RULE)
  })

  test('Python (workloads/_secrets.py) answers the same for every name', () => {
    const names = [
      ...SECRET_NAMES,
      ...PLAIN_NAMES,
      'MY_AUTH',
      'hf-token',
      'X_PASS',
      'KEYBOARD',
      'PWD',
      'OLDPWD',
      'DB_PWD'
    ]
    const out = execFileSync(
      'python3',
      [
        '-c',
        'import json,sys; from workloads._secrets import is_secret_name as f; print(json.dumps([f(n) for n in json.loads(sys.argv[1])]))',
        JSON.stringify(names)
      ],
      { encoding: 'utf8', timeout: 30_000 }
    )
    expect(JSON.parse(out)).toEqual(names.map(isSecretName))
  })
})

describe('children get an allow-listed environment', () => {
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: '/home/runner',
    CUDA_VISIBLE_DEVICES: '0',
    ...Object.fromEntries(
      [...RUNNER_TOKENS, ...SECRET_NAMES.filter(n => !n.startsWith('-'))].map(n => [n, VALUE])
    )
  }

  test('the workload and the runtime client environments hold no token and no secret-named variable', () => {
    for (const env of [scrubbedEnv(base), runtimeClientEnv(base)]) {
      expect(Object.values(env)).not.toContain(VALUE)
      expect(env.CUDA_VISIBLE_DEVICES).toBe('0')
    }
  })

  test('a real child (as docker and nvidia-smi are started) sees none of them', async () => {
    const saved = { ...process.env }
    Object.assign(process.env, base)
    try {
      const res = await execCapture('env', [], { timeoutMs: 10_000 })
      expect(res.exitCode).toBe(0)
      expect(res.stdout).not.toContain(VALUE)
      for (const n of RUNNER_TOKENS) expect(res.stdout).not.toContain(`${n}=`)
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
      Object.assign(process.env, saved)
    }
  })
})

describe('secret values are masked before anything is written', () => {
  test('a value from a secret-named variable is masked in the report, whatever carried it there', () => {
    registerEnvSecrets({ NVIDIA_NGC_PAT: VALUE, SHORT_KEY: '1' })
    const s = structuredClone(regression)
    s.warnings = [`the image printed ${VALUE} at start`]
    const md = buildReport(s)
    expect(md).not.toContain(VALUE)
    expect(md).not.toContain('nvapi-AbCd')
    // A short value is not registered: it would mask every `1` of the report.
    expect(md).toContain('1')
  })

  test('NAME=value pairs of a secret-shaped name are masked even when the value was never registered', () => {
    expect(
      redact(`env NVIDIA_NGC_PAT=${VALUE} CUDA_PASSWD=hunter22 X_PRIVATE_KEY_PEM='abc def' DB_PWD=p4ss`)
    ).toBe('env NVIDIA_NGC_PAT=*** CUDA_PASSWD=*** X_PRIVATE_KEY_PEM=*** DB_PWD=***')
    expect(redact('OMP_NUM_THREADS=4 PATH=/usr/bin')).toBe('OMP_NUM_THREADS=4 PATH=/usr/bin')
  })
})
