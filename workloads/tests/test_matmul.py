"""matmul on the CPU (NumPy where torch is absent) at tiny sizes."""

import importlib.util
import os
import unittest

from workloads.tests._util import WORKLOADS, WorkloadTestCase, has_module, run_workload, skip_without_compute


def load(name):
    spec = importlib.util.spec_from_file_location("wl_" + name, os.path.join(WORKLOADS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@skip_without_compute
class MatmulCpuTest(WorkloadTestCase):
    def test_cpu_default_backend(self):
        run = run_workload("matmul.py", ["--device", "cpu", "--size", "64", "--iters", "5", "--warmup", "1"])
        self.assertProtocol(run, "matmul")
        ms = run.samples("kernel_ms")
        tf = run.samples("tflops")
        self.assertEqual([s["iteration"] for s in ms], [1, 2, 3, 4, 5])
        self.assertEqual(len(tf), 5)
        self.assertEqual(run.samples("pct_of_peak"), [])  # no known peak on a CPU
        for s, t in zip(ms, tf):
            self.assertEqual(s["unit"], "ms")
            self.assertEqual(t["unit"], "TFLOP/s")
            self.assertGreater(s["value"], 0)
            self.assertAlmostEqual(t["value"], 2 * 64**3 / (s["value"] * 1e-3) / 1e12, places=9)
        summ = run.summary
        self.assertEqual(summ["size"], 64)
        self.assertEqual(summ["iters"], 5)
        self.assertIsNone(summ["energy_j"])
        self.assertIsNone(summ["peak_tflops"])
        self.assertTrue(summ["output_finite"])
        self.assertGreater(summ["measured_s"], 0)
        self.assertEqual(summ["median_ms"], sorted(s["value"] for s in ms)[2])
        self.assertEqual(summ["timer"], "perf_counter")
        expected = "torch" if has_module("torch") else "numpy"
        self.assertEqual(run.env["backend"], expected)
        self.assertFalse(run.env["tf32"])
        self.assertEqual(run.events[0]["params"]["size"], 64)

    def test_numpy_backend_fp16(self):
        if not has_module("numpy"):
            self.skipTest("numpy is not importable")
        run = run_workload("matmul.py", ["--device", "cpu", "--backend", "numpy", "--size", "32", "--dtype", "fp16", "--iters", "2"])
        self.assertProtocol(run, "matmul")
        self.assertEqual(run.summary["backend"], "numpy")
        self.assertEqual(run.summary["dtype"], "fp16")

    def test_numpy_has_no_bf16(self):
        if not has_module("numpy"):
            self.skipTest("numpy is not importable")
        run = run_workload("matmul.py", ["--device", "cpu", "--backend", "numpy", "--dtype", "bf16", "--size", "16"])
        self.assertError(run, "matmul", "bad_args", 2)

    def test_min_warmup_is_kept_by_the_cpu_backends(self):
        # --min-warmup-s holds on every backend (the NumPy one once ignored it): the warm-up lasts at least
        # that long, in products beyond --warmup, before the first measured one.
        backends = [b for b in ("numpy", "torch") if has_module(b)]
        if not backends:
            self.skipTest("neither numpy nor torch is importable")
        for backend in backends:
            with self.subTest(backend=backend):
                args = ["--device", "cpu", "--backend", backend, "--size", "16", "--iters", "2", "--warmup", "1"]
                run = run_workload("matmul.py", args + ["--min-warmup-s", "0.4"])
                self.assertProtocol(run, "matmul")
                self.assertGreaterEqual(run.summary["warmup_s"], 0.4)
                self.assertGreater(run.summary["extra_warmup_iters"], 0)
                region = [e for e in run.events if e["event"] == "region" and e.get("edge") == "start"]
                first_kernel = [e for e in run.events if e["event"] == "phase" and e["name"] == "first_kernel"]
                self.assertGreaterEqual(region[0]["epoch_s"] - first_kernel[0]["end_epoch_s"], 0.4)
                run = run_workload("matmul.py", args)
                self.assertEqual(run.summary["extra_warmup_iters"], 0)

    def test_default_size_on_cpu_is_small(self):
        run = run_workload("matmul.py", ["--device", "cpu", "--iters", "1", "--warmup", "0"])
        self.assertProtocol(run, "matmul")
        self.assertEqual(run.summary["size"], 512)


class PeakTableTest(unittest.TestCase):
    def test_known_and_unknown_gpus(self):
        m = load("matmul")
        self.assertEqual(m.peak_tflops("NVIDIA H200", "bf16"), 989.4)
        self.assertEqual(m.peak_tflops("NVIDIA H100 80GB HBM3", "fp32"), 67.0)
        self.assertEqual(m.peak_tflops("NVIDIA H100 80GB HBM3", "tf32"), 494.7)
        self.assertEqual(m.peak_tflops("NVIDIA H100 PCIe", "fp16"), 756.0)
        self.assertEqual(m.peak_tflops("NVIDIA H100 PCIe", "fp32"), 51.0)
        self.assertIsNone(m.peak_tflops("NVIDIA H100 NVL", "bf16"))
        self.assertIsNone(m.peak_tflops("NVIDIA GH200 480GB", "bf16"))
        self.assertIsNone(m.peak_tflops("NVIDIA A100-SXM4-80GB", "bf16"))
        self.assertIsNone(m.peak_tflops(None, "bf16"))

    def test_buffer_rotation(self):
        m = load("matmul")
        self.assertEqual(m.n_buffers(0, 10000, 4), 1)
        self.assertEqual(m.n_buffers(0, 8192, 2), 1)
        self.assertEqual(m.n_buffers(0, 4096, 2), 4)
        self.assertEqual(m.n_buffers(0, 64, 4), 8)
        self.assertEqual(m.n_buffers(3, 64, 4), 3)


if __name__ == "__main__":
    unittest.main()
