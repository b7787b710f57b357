/**
 * The published package as a user gets it: `npm pack`, installed into an empty folder, pulls only itself (dist/
 * bundles every runtime dependency) and its `gpu-overhead` bin runs from there.
 */
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

/** The bound on what installing the CLI may pull; today it is the package alone. */
const MAX_INSTALLED_PACKAGES = 20
const NPM_TIMEOUT_MS = 120_000

let work: string
let installDir: string

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', timeout: NPM_TIMEOUT_MS, stdio: 'pipe' })
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-pack-'))
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], process.cwd())) as {
    filename: string
    files: { path: string }[]
  }[]
  const tarball = packed[0]?.filename
  if (!tarball) throw new Error('npm pack --json named no tarball')
  installDir = path.join(work, 'user')
  fs.mkdirSync(installDir)
  fs.writeFileSync(path.join(installDir, 'package.json'), JSON.stringify({ name: 'user', private: true }))
  // --offline: a package with no dependencies needs no registry; a dependency added by mistake fails here.
  npm(['install', '--offline', '--no-audit', '--no-fund', path.join(work, tarball)], installDir)
}, NPM_TIMEOUT_MS * 2)

afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

describe('npm pack + install', () => {
  it(`pulls at most ${MAX_INSTALLED_PACKAGES} packages (the bundle carries its dependencies)`, () => {
    const installed = npm(['ls', '--all', '--parseable'], installDir)
      .split('\n')
      .filter(line => line.includes(`${path.sep}node_modules${path.sep}`))
    expect(installed.length).toBeGreaterThanOrEqual(1)
    expect(installed.length).toBeLessThanOrEqual(MAX_INSTALLED_PACKAGES)
  })

  it('ships the bundles, the workloads and the license, not the workload tests', () => {
    const root = path.join(installDir, 'node_modules', 'gpu-overhead-action')
    for (const file of ['dist/cli.js', 'dist/index.js', 'action.yml', 'LICENSE', 'workloads/matmul.py']) {
      expect(fs.existsSync(path.join(root, file))).toBe(true)
    }
    expect(fs.existsSync(path.join(root, 'workloads', 'tests'))).toBe(false)
  })

  it('runs the gpu-overhead bin from the install folder', () => {
    const bin = path.join(installDir, 'node_modules', '.bin', 'gpu-overhead')
    const out = execFileSync(bin, ['--help'], { encoding: 'utf8', timeout: NPM_TIMEOUT_MS })
    expect(out).toMatch(/Usage: gpu-overhead/)
  })
})
