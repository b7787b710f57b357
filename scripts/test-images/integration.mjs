// `npm run test:integration`: the integration lane through Jest. Where no Docker engine answers and this is not
// CI, one line says the lane was skipped and how to start an engine, and it exits 0: `npm test` then passes on a
// host or in a container without Docker (every test of the lane needs one). On CI (CI=true) a missing engine
// stays an error, which Jest's globalSetup (before.mjs) reports.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { engineAnswers, noEngineLine } from './images.mjs'

const engine = await engineAnswers()
if (!engine.ok && process.env.CI !== 'true') {
  console.error(`integration lane skipped: ${noEngineLine(engine.why)}`)
  process.exit(0)
}
// jest's package exports no bin path: its bin lies beside build/ (jest/bin/jest.js).
const jest = path.join(path.dirname(createRequire(import.meta.url).resolve('jest')), '..', 'bin', 'jest.js')
// Arguments after ours are Jest's (test paths, -t); `--` keeps them from reading as project names.
const res = spawnSync(
  process.execPath,
  // Three workers on two cores: these files spend much of their time waiting on the engine, containers and
  // timeouts (the hung-engine file waits 45 s doing nothing), so a third worker fills the idle CPU: the lane took
  // 296 s instead of 384 s on the 2-core CI-class machine (2026-11-28).
  [jest, '--selectProjects', 'integration', '--maxWorkers', '3', '--', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ')
    }
  }
)
process.exit(res.status ?? 1)
