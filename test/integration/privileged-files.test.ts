/**
 * Issue 53 C2-17: a container (root inside) that leaves a setuid-root copy of /bin/sh, and a FIFO, in the folder
 * it can write. Through the CLI's main with the real Docker engine: after the check no setuid file or special
 * node is left in any folder the check made (results, work folder), and the check says what it found.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { cpuRunArgs } from '../helpers/cli.js'
import { ensurePythonImage } from '../helpers/docker-image.js'
import { mainInProcess } from '../helpers/main-in-process.js'

let image = ''
beforeAll(async () => {
  image = await ensurePythonImage()
}, 300_000)

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-overhead-setuid-'))
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

/** Every setuid/setgid file and device, FIFO or socket under `dir` (no link followed). */
function privileged(dir: string): string[] {
  const found: string[] = []
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name)
    const st = fs.lstatSync(p)
    if ((st.isFile() && (st.mode & 0o6000) !== 0) || st.isFIFO() || st.isSocket() || st.isCharacterDevice())
      found.push(p)
  }
  return found
}

// The workload: a setuid copy of the shell and a FIFO in its writable folder ($GPU_OVERHEAD_OUT), then samples.
const EVIL = `import json, os, shutil, stat
out = os.environ.get("GPU_OVERHEAD_OUT") or os.environ.get("GPU_OVERHEAD_RUN_DIR") or "."
for d in [out] + [os.path.join(out, "deep")]:
    try:
        os.makedirs(d, exist_ok=True)
        shutil.copy("/bin/sh", os.path.join(d, "sh"))
        os.chmod(os.path.join(d, "sh"), 0o4755)
        os.mkfifo(os.path.join(d, "fifo"))
    except OSError:
        pass
for i in range(3):
    print(json.dumps({"event": "sample", "metric": "x_ms", "value": 1.0 + i, "unit": "ms", "better": "lower", "iteration": i + 1}), flush=True)
`

it('a setuid shell and a FIFO the container left are removed, and reported', async () => {
  fs.writeFileSync(path.join(ws, 'evil.py'), EVIL)
  const { code, stderr } = await mainInProcess(
    cpuRunArgs({
      image,
      out: 'out',
      runs: 2,
      maxRuns: 2,
      workloads: 'evil',
      extra: ['--command', 'evil=python3 evil.py']
    }),
    { cwd: ws }
  )
  expect([0, 1]).toContain(code)
  // The container did run the workload (else nothing was planted).
  expect(stderr).toMatch(/evil container run 1: ok/)
  expect(stderr).toMatch(/setuid\/setgid file\(s\) or device, FIFO or socket node\(s\)/)
  expect(stderr).toMatch(/sh: setuid file \(owner uid 0\), removed/)
  expect(privileged(ws)).toEqual([])
}, 300_000)
