import { execCapture } from '../../src/util/exec.js'
import { ensurePythonImage, PYTHON_IMAGE_TAG } from '../helpers/docker-image.js'

describe('test image helper (real docker import)', () => {
  it('builds python3 + numpy once and reuses it by tag', async () => {
    const tag = await ensurePythonImage()
    expect(tag).toBe(PYTHON_IMAGE_TAG)
    const again = Date.now()
    await ensurePythonImage()
    expect(Date.now() - again).toBeLessThan(5000)
    const res = await execCapture('docker', [
      'run',
      '--rm',
      '--network',
      'none',
      tag,
      'python3',
      '-c',
      'import numpy, sys; a = numpy.ones((64, 64)); print(sys.version_info[:2], float((a @ a).sum()))'
    ])
    expect(res.stderr).toBe('')
    expect(res.exitCode).toBe(0)
    expect(res.stdout).toContain('262144.0')
    const sh = await execCapture('docker', [
      'run',
      '--rm',
      '--network',
      'none',
      tag,
      'sh',
      '-c',
      'ls / && cat /etc/passwd | head -1'
    ])
    expect(sh.exitCode).toBe(0)
  })
})
