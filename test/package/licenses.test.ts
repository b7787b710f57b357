/**
 * dist/licenses.txt (scripts/licenses.mjs, written by the rollup build): every bundled package named with its
 * declared license and its license text, identical texts once, the same order on every build.
 */
import * as fs from 'node:fs'
// @ts-expect-error: a plain .mjs script (the rollup config's), typed here by use
import { licensesText } from '../../scripts/licenses.mjs'

const dep = (name: string, version: string, license: string | null, licenseText: string | null) => ({
  name,
  version,
  license,
  licenseText
})
const render = licensesText as (deps: ReturnType<typeof dep>[]) => string

describe('licensesText', () => {
  const deps = [
    dep('zeta', '1.0.0', 'MIT', 'MIT License\n\nCopyright (c) Z\n'),
    dep('alpha', '2.1.0', 'Apache-2.0', '  Apache License 2.0 text  '),
    dep('beta', '0.3.0', 'MIT', 'MIT License\n\nCopyright (c) Z'),
    dep('gamma', '4.0.0', 'ISC', null)
  ]

  it('names each package with its license; shares identical texts; says when a package has no file', () => {
    const text = render(deps)
    expect(text.split('\n')[0]).toBe(
      'Third-party software bundled in dist/index.js and dist/cli.js, and its licenses.'
    )
    const entries = text.split(`\n${'-'.repeat(80)}\n\n`).slice(1)
    expect(entries).toEqual([
      'alpha@2.1.0 (Apache-2.0)\n\nApache License 2.0 text\n',
      'beta@0.3.0 (MIT)\nzeta@1.0.0 (MIT)\n\nMIT License\n\nCopyright (c) Z\n',
      'gamma@4.0.0 (ISC)\n\n(no license file in the package; its package.json declares ISC)\n'
    ])
  })

  it('does not depend on the order the bundler found the packages in', () => {
    expect(render([...deps].reverse())).toBe(render(deps))
  })
})

const built = fs.existsSync('dist/licenses.txt')
;(built ? describe : describe.skip)('dist/licenses.txt as built', () => {
  it('lists the bundled runtime packages, each with a license', () => {
    const text = fs.readFileSync('dist/licenses.txt', 'utf8')
    for (const name of ['@actions/core', 'commander', 'zod', 'yaml', 'simple-statistics'])
      expect(text).toMatch(
        new RegExp(
          `^${name.replace('/', '\\/')}@\\d+\\.\\d+\\.\\d+ \\((MIT|ISC|Apache-2\\.0|BSD-\\d-Clause)\\)$`,
          'm'
        )
      )
    // Packages that declare no license at all, known and accepted one by one (buffers: pulled in by
    // @actions/artifact's unzip-stream; its package.json and files name none). A new one fails here.
    const undeclared = [...text.matchAll(/^(\S+) \(UNKNOWN\)$/gm)].map(m => m[1])
    expect(undeclared).toEqual(['buffers@0.1.1'])
  })
})
