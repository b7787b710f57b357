// The published package as a user gets it: `npm pack`, installed into an empty folder (offline: it must need
// nothing from a registry), then `npx gpu-overhead run --device cpu --out <a folder outside the cwd>`.
// Run after check:dist (it uses the committed dist/). Exits non-zero with one line saying what failed.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const MAX_INSTALLED_PACKAGES = 20
const RUN_TIMEOUT_MS = 300_000
const work = mkdtempSync(join(tmpdir(), 'gpu-overhead-pack-'))
const fail = message => {
  console.error(`check-pack: ${message}`)
  process.exit(1)
}

try {
  const npm = (args, cwd) =>
    execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], process.cwd()))
  const user = join(work, 'user')
  mkdirSync(user)
  writeFileSync(join(user, 'package.json'), JSON.stringify({ name: 'user', private: true }))
  npm(['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)], user)
  const installed = npm(['ls', '--all', '--parseable'], user)
    .split('\n')
    .filter(line => line.includes('/node_modules/'))
  if (installed.length > MAX_INSTALLED_PACKAGES)
    fail(`installing the package pulled ${installed.length} packages (at most ${MAX_INSTALLED_PACKAGES})`)

  // Outside the install folder and outside this repository: the CLI writes wherever it is told.
  const out = join(mkdtempSync(join(tmpdir(), 'gpu-overhead-anywhere-')), 'results')
  const args = ['gpu-overhead', 'run', '--device', 'cpu', '--arms', 'native,native', '--workloads', 'matmul']
  const run = spawnSync('npx', [...args, '--runs', '2', '--out', out], {
    cwd: user,
    encoding: 'utf8',
    timeout: RUN_TIMEOUT_MS
  })
  const wrote = existsSync(join(out, 'report.md')) && existsSync(join(out, 'summary.json'))
  rmSync(join(out, '..'), { recursive: true, force: true, maxRetries: 2 })
  if (run.status !== 0)
    fail(
      `npx gpu-overhead run --out ${out} exited ${run.status}: ${(run.stderr || run.stdout).trim().split('\n').pop()}`
    )
  if (!wrote) fail(`npx gpu-overhead run --out ${out} exited 0 but wrote no report.md/summary.json there`)
  console.log(
    `check-pack: ${packed.filename} (${(packed.size / 1024).toFixed(0)} KiB) installs ${installed.length} package(s); ` +
      `npx gpu-overhead run --device cpu --out ${out} exited 0`
  )
} finally {
  rmSync(work, { recursive: true, force: true, maxRetries: 2 })
}
