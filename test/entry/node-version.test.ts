/**
 * An unsupported Node is refused in one line, before anything else runs: by the function (against semver as
 * the oracle), and by both built bundles started under a Node that reports an old version (a preload
 * rewrites process.versions.node before the bundle's first module is evaluated).
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import fc from 'fast-check'
import semver from 'semver'
import { MIN_NODE, unsupportedNode } from '../../src/util/node-version.js'

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } }

describe('unsupportedNode', () => {
  it("is package.json's engines", () => {
    expect(semver.minVersion(pkg.engines.node)?.version).toBe(MIN_NODE)
  })

  it('refuses exactly the versions below engines, naming both', () => {
    for (const v of ['18.19.1', '20.18.3', '20.9.0', '16.0.0', '0.12.18']) {
      expect(unsupportedNode(v)).toBe(
        `gpu-overhead needs Node ${MIN_NODE} or newer (package.json engines), this is Node ${v}; install Node 20.19+, 22 or 24 (README, "Prerequisites")`
      )
    }
    for (const v of ['20.19.0', '20.20.2', '22.0.0', '24.11.1', '100.0.0'])
      expect(unsupportedNode(v)).toBeNull()
    fc.assert(
      fc.property(fc.nat(40), fc.nat(40), fc.nat(40), (a, b, c) => {
        const v = `${a}.${b}.${c}`
        expect(unsupportedNode(v) === null).toBe(semver.satisfies(v, pkg.engines.node))
      })
    )
  })
})

/** Runs a bundle under this Node made to report `version` from the very start. */
function underNode(version: string, bundle: string, args: string[]) {
  const preload = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${version}'})`
  return spawnSync('node', ['--import', preload, bundle, ...args], { encoding: 'utf8', timeout: 60_000 })
}

describe('the bundles under an old Node', () => {
  it('the CLI exits 2 with one line on stderr and runs nothing', () => {
    const r = underNode('18.19.0', 'dist/cli.js', ['--version'])
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`${unsupportedNode('18.19.0')}\n`)
    const ok = underNode(MIN_NODE, 'dist/cli.js', ['--version'])
    expect([ok.status, ok.stderr]).toEqual([0, ''])
  })

  it('the action fails the step with one error annotation', () => {
    const r = underNode('18.19.0', 'dist/index.js', [])
    expect(r.status).toBe(1)
    expect(r.stdout).toBe(`::error::${unsupportedNode('18.19.0')}\n`)
  })
})
