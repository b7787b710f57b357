/**
 * jest-circus's runner, with one leak closed. jest-circus 30 loads its initialiser again for every test file,
 * and each copy makes an AsyncLocalStorage (its test execution context) that is never disabled. On Node 20 every
 * enabled AsyncLocalStorage is visited for each promise created, so a worker's promises grew slower file by
 * file: 100,000 awaits took 83 ms in a worker's first file and 240 ms in its twelfth, and promise bookkeeping was
 * ~9% of the unit lane's CPU. This runner disables the instances a file made once that file has run.
 */
const asyncHooks = require('node:async_hooks')
const circusModule = require('jest-circus/runner')
const circus = circusModule.default ?? circusModule

const Original = asyncHooks.AsyncLocalStorage
const made = new Set()
class TrackedStorage extends Original {
  constructor(...args) {
    super(...args)
    made.add(this)
  }
}
// jest-runtime hands a test file's `require('node:async_hooks')` the worker's own module, so the initialiser
// constructs this subclass.
asyncHooks.AsyncLocalStorage = TrackedStorage

module.exports = async function runner(...args) {
  try {
    return await circus(...args)
  } finally {
    for (const storage of made) storage.disable()
    made.clear()
  }
}
