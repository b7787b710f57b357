/**
 * Child process for the baseline race test: appends `count` checks named `<writer>-<i>` to the file.
 * Usage: node --import tsx append-worker.ts FILE WRITER COUNT
 */
import { JsonFileBaselineStore } from '../../../src/analyze/baseline/index.js'

const [file, writer, count] = process.argv.slice(2)
if (file === undefined || writer === undefined || count === undefined)
  throw new Error('usage: FILE WRITER COUNT')
const store = new JsonFileBaselineStore(file)
for (let i = 0; i < Number(count); i++) {
  const result = await store.append(
    {
      check_id: `${writer}-${i}`,
      series: [
        {
          workload: 'matmul',
          params: '',
          metric: 'kernel_ms',
          environment: 'container',
          unit: 'ms',
          scope: 'steady',
          runs: ['1', '2'],
          values: [41 + i / 1000, 41.01 + i / 1000],
          iterations: [1, 1]
        }
      ],
      fingerprints: {
        container: { gpu_name: 'H200', driver: '580.1', image_digest: 'sha256:abc', gpu_access: 'devices' }
      }
    },
    { keep: 1000 }
  )
  if (!result.saved) throw new Error(result.message)
}
