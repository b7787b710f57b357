// `npm run checks`: the steps of `npm test` before the Jest lanes — ESLint, Prettier and the type check at the
// same time, each in its own process, then the Python workloads' tests alone. They are independent, single-threaded
// (ESLint and tsc each build the TypeScript program on one core) and none of the three measures time: on 2 cores
// they take the longest step's time, not the sum (issue 42). Each step's output is printed whole when it ends
// (never interleaved), with its time; the exit status is 1 when any step failed, and the failed steps are named
// last. `npm run checks -- lint typecheck` runs those steps only.
import { spawn } from 'node:child_process'

const STEPS = {
  eslint: ['npx', ['eslint', '.']],
  prettier: ['npx', ['prettier', '--check', '.']],
  typecheck: ['npx', ['tsc', '--noEmit']],
  // The archive `uses:` downloads stays small and the docs' links resolve (scripts/check-docs.mjs, issue 55).
  docs: ['node', ['scripts/check-docs.mjs']],
  'test:py': ['python3', ['-m', 'unittest', 'discover', '-s', 'workloads/tests', '-t', '.', '-v']]
}
/** The step names npm's scripts use, for `npm run checks -- lint`. */
const ALIASES = { lint: ['eslint', 'prettier'] }

const asked = process.argv.slice(2).flatMap(n => ALIASES[n] ?? [n])
const unknown = asked.filter(n => !(n in STEPS))
if (unknown.length) {
  console.error(`checks: no step ${unknown.join(', ')}; steps: ${[...Object.keys(STEPS), 'lint'].join(', ')}`)
  process.exit(2)
}
const names = asked.length ? [...new Set(asked)] : Object.keys(STEPS)

function run(name) {
  const [cmd, args] = STEPS[name]
  const t0 = Date.now()
  return new Promise(resolve => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks = []
    child.stdout.on('data', d => chunks.push(d))
    child.stderr.on('data', d => chunks.push(d))
    let ended = false
    const done = (code, why) => {
      if (ended) return
      ended = true
      const s = ((Date.now() - t0) / 1000).toFixed(1)
      const text = Buffer.concat(chunks).toString().trimEnd()
      process.stdout.write(`\n== ${name} (${args.join(' ')}): ${why ?? `exit ${code}`} in ${s} s\n${text}\n`)
      resolve({ name, ok: code === 0 })
    }
    child.on('error', e => done(null, `could not start: ${e.message}`))
    child.on('close', (code, signal) => done(code, signal ? `killed by ${signal}` : undefined))
  })
}

// test:py measures a busy process's CPU share (test_peers: > 10%): beside three single-threaded steps on two
// cores it read 2.9% on CI. It runs alone, after the others (about 25 s).
const ALONE = new Set(['test:py'])
const results = await Promise.all(names.filter(n => !ALONE.has(n)).map(run))
for (const n of names.filter(n => ALONE.has(n))) results.push(await run(n))
const failed = results.filter(r => !r.ok).map(r => r.name)
if (failed.length) {
  console.error(`\nchecks failed: ${failed.join(', ')}`)
  process.exit(1)
}
console.log(`\nchecks passed: ${names.join(', ')}`)
