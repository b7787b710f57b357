/** The input/output contract is stated once per place and must agree: action.yml, constants, README, package. */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { parse } from 'yaml'
import { ACTION_ONLY, INPUT_HELP } from '../src/entry/cli/index.js'
import { FILE_KNOBS } from '../src/config/file.js'
import { Inputs, Outputs } from '../src/types/inputs.js'
import { PROJECT_URL, VERSION } from '../src/util/version.js'

const action = parse(fs.readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, unknown>
  outputs: Record<string, unknown>
  runs: { using: string; main: string; post?: string; 'post-if'?: string }
}

describe('contract', () => {
  it('action.yml declares exactly the Inputs and Outputs enums', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.values(Inputs).sort())
    expect(Object.keys(action.outputs).sort()).toEqual(Object.values(Outputs).sort())
    // The post step puts power limits back after a killed power-cap sweep; it must run on failure too.
    expect(action.runs).toEqual({
      using: 'node24',
      main: 'dist/index.js',
      post: 'dist/index.js',
      'post-if': 'always()'
    })
  })
  it('every `run` flag has its own help line', () => {
    const missing = Object.values(Inputs).filter(i => !ACTION_ONLY.includes(i) && !INPUT_HELP[i])
    expect(missing).toEqual([])
  })
  it('README and docs/inputs.md list every input (generated from action.yml), no description over 300 characters', () => {
    expect(() => execFileSync('node', ['scripts/readme-inputs.mjs', '--check'])).not.toThrow()
    const action = parse(fs.readFileSync('action.yml', 'utf8')) as {
      inputs: Record<string, { description: string }>
    }
    const long = Object.entries(action.inputs).filter(([, s]) => s.description.length > 300)
    expect(long.map(([n]) => n)).toEqual([])
  })
  it('docs/inputs.md marks exactly the inputs the config file accepts', () => {
    const details = parse(fs.readFileSync('docs/inputs-details.yml', 'utf8')) as { 'config-file': string[] }
    expect([...details['config-file']].sort()).toEqual([...FILE_KNOBS].sort())
    expect(FILE_KNOBS).toHaveLength(12)
  })
  it('Marketplace metadata follows the action.yml rules (description, branding)', () => {
    const action = parse(fs.readFileSync('action.yml', 'utf8')) as {
      name: string
      description: string
      branding: { icon: string; color: string }
    }
    expect(action.name.length).toBeGreaterThan(0)
    // GitHub Marketplace shows at most 125 characters of the description.
    expect(action.description.length).toBeLessThanOrEqual(125)
    // The colors GitHub allows; the icon from the Feather v4.28 subset GitHub allows (a few fitting ones here).
    expect(['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark']).toContain(
      action.branding.color
    )
    expect(['cpu', 'activity', 'bar-chart', 'bar-chart-2', 'zap', 'check-circle', 'trending-up']).toContain(
      action.branding.icon
    )
  })
  it('version matches package.json and bin points at the CLI bundle', () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
      version: string
      bin: Record<string, string>
      homepage: string
      repository: { url: string }
    }
    expect(VERSION).toBe(pkg.version)
    // The report links this project's docs by URL (the user's repository has no docs/).
    expect(PROJECT_URL).toBe(pkg.homepage)
    expect(pkg.repository.url).toBe(`git+${PROJECT_URL}.git`)
    expect(pkg.bin['gpu-overhead']).toBe('dist/cli.js')
  })
})
