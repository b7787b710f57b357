/**
 * PREFLIGHT FAILED: the host driver (550.54.15, CUDA 12.4) is below the CUDA 13.x floor (580) that the
 * PyTorch 25.10 image needs, so CUDA init would fail in the container; nothing was run.
 */
import type { CheckSummary } from '../../../src/types/index.js'
import { H200_CONTAINER, H200_NATIVE, PYTORCH_IMAGE } from './build.js'
import { pass } from './pass.js'

const native = { ...H200_NATIVE, driver: '550.54.15', cuda: '12.4' }
const started = Date.UTC(2025, 10, 28, 7, 2, 11)

export const gateFailed: CheckSummary = {
  ...pass,
  check_id: '20251128T070211Z-e4a0',
  started_at: new Date(started).toISOString(),
  finished_at: new Date(started + 6400).toISOString(),
  wall_s: 6.4,
  complete: true,
  incomplete_reason: null,
  verdict: 'error',
  overhead_pct: null,
  p_value: null,
  fingerprints: { native, container: { ...H200_CONTAINER, driver: '550.54.15' } },
  preflight: [
    {
      name: 'driver-gate',
      status: 'fail',
      message: `host driver 550.54.15 is below 580, the minimum for CUDA 13.x; ${PYTORCH_IMAGE} has CUDA_VERSION 13.0.2.006 (CUDA_DRIVER_VERSION 580.95.05), so CUDA init in the container would fail.`,
      fix: 'upgrade the host driver to R580 (580.95.05 or newer), or pin an image built for CUDA 12.4 or older, e.g. nvcr.io/nvidia/pytorch:24.04-py3.',
      details: { driver: '550.54.15', image_cuda: '13.0.2.006', floor: '580', release_driver: '580.95.05' }
    },
    {
      name: 'mounts',
      status: 'warn',
      message:
        '/ckpt is inside the image, so checkpoint writes go through the OverlayFS writable layer (copy-up: a 1-byte write into a 516 MiB file took 411 ms).',
      fix: 'bind-mount it: --mount type=bind,src=/srv/ckpt,dst=/ckpt'
    },
    { name: 'persistence-mode', status: 'pass', message: 'persistence mode is enabled.', fix: null }
  ],
  analysis: null,
  latency: [],
  telemetry: [],
  baseline: null,
  runs: [],
  series: [],
  not_measured: [
    { what: 'All workloads (matmul, llm, io)', why: 'the driver gate failed, so nothing was run.' }
  ],
  warnings: []
}
