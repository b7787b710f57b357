/**
 * Issue 54: a launcher that shares no folder with this host (the tests' fake declares `sharedFolder: false`)
 * gets its events framed on the process's stdout. The real matmul workload runs through execute's processSpec
 * and the runner: its events arrive framed, a banner beside them stays the log, and a framed start of another
 * run fails the run as it would on a channel file.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { definitionOf, loadConfig } from '../../src/config/index.js'
import { RunFolders, processSpec } from '../../src/execute/index.js'
import { runProcess } from '../../src/execute/process.js'
import { registerLauncher } from '../../src/launchers/index.js'
import { emptyPreflightOutcome } from '../../src/preflight/index.js'
import { Inputs } from '../../src/types/inputs.js'
import { fakeLauncher } from './fake/index.js'

registerLauncher(fakeLauncher)

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'framed-'))
const folders = RunFolders.open('framed', root)
afterAll(() => {
  folders.close()
  fs.rmSync(root, { recursive: true, force: true })
})
const config = loadConfig({
  workspace: root,
  flags: { [Inputs.Arms]: 'native,fake', [Inputs.Device]: 'cpu', [Inputs.Workloads]: 'matmul' }
})

function specOf(armIndex: number) {
  return processSpec({
    planned: { order: armIndex, workload: 'matmul', arm: config.arms[armIndex]!, run: 1, warmup: false },
    config,
    checkId: 'framed',
    workloadsDir: path.resolve('workloads'),
    io: null,
    pre: emptyPreflightOutcome(),
    lane: null,
    hold: false,
    folders,
    definition: definitionOf(config.definitions, 'matmul')
  })
}

test('the shared-folder launcher keeps its channel file; the fake (no shared folder) has none', () => {
  const native = specOf(0)
  expect(native.eventsPath).toBe(path.join(native.runDir!, 'events.jsonl'))
  expect(native.framedEvents).toBeUndefined()
  native.cleanup?.()
  const fake = specOf(1)
  expect(fake.eventsPath).toBeUndefined()
  expect(fake.framedEvents).toBe(true)
  expect(fake.env!.GPU_OVERHEAD_EVENTS).toBe('stdout')
  fake.cleanup?.()
})

test('the real workload through the fake launcher: every event arrives framed on stdout, its run id echoed', async () => {
  const spec = specOf(1)
  const r = await runProcess(spec, () => undefined)
  spec.cleanup?.()
  expect(r.exitCode).toBe(0)
  expect(r.channelError).toBeNull()
  expect(r.badLines).toEqual([])
  expect(r.events[0]).toMatchObject({ event: 'start', workload: 'matmul', protocol: 2, run_id: spec.runId })
  expect(r.events.filter(e => e.event === 'sample').length).toBeGreaterThan(0)
  expect(r.events.at(-1)?.event).toBe('summary')
  // On stdout, so in the run's log too.
  expect(r.log.text()).toContain(`gpu-overhead:2 {"event":"start"`)
})

test('beside the frames a banner is the log, an unframed event is no event, a framed start of another run fails it', async () => {
  const spec = specOf(1)
  spec.cleanup?.()
  const lines = [
    '== NVIDIA banner ==',
    JSON.stringify({ event: 'start', workload: 'matmul', protocol: 2, run_id: spec.runId }),
    'gpu-overhead:2 ' + JSON.stringify({ event: 'start', workload: 'matmul', protocol: 2, run_id: 'other' })
  ]
  const script = `import sys\nfor l in ${JSON.stringify(lines)}: print(l)\nsys.stdout.flush()\nimport time; time.sleep(5)`
  const r = await runProcess({ ...spec, command: 'python3', args: ['-c', script] }, () => undefined)
  expect(r.events).toEqual([])
  expect(r.badLines).toEqual([])
  expect(r.channelError).toMatch(/events are of another run/)
  expect(r.log.text()).toContain('== NVIDIA banner ==')
})
