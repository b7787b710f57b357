"""The `stack`, `memory` and `region` events: what each arm really runs on, recorded by the workload itself."""

import os
import subprocess
import sys
import unittest

from workloads import _stack as S
from workloads.tests._util import WorkloadTestCase, has_module, python, run_workload, skip_without_compute

BLAS_KINDS = ("openblas", "mkl", "blis", "flexiblas", "reference")


class EnvTest(unittest.TestCase):
    def test_families_and_named_variables_are_kept_others_dropped(self):
        env = {
            "NVIDIA_TF32_OVERRIDE": "0",
            "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
            "TORCH_SOMETHING_NEW": "1",
            "OMP_NUM_THREADS": "4",
            "LD_PRELOAD": "/usr/lib/libjemalloc.so.2",
            "HOME": "/root",
            "PATH": "/usr/bin",
            "TF_CLI_CONFIG_FILE": "/root/.terraformrc",  # terraform, not TensorFlow
        }
        got = S.relevant_env(env)
        self.assertEqual(sorted(got), ["CUBLAS_WORKSPACE_CONFIG", "LD_PRELOAD", "NVIDIA_TF32_OVERRIDE", "OMP_NUM_THREADS", "TORCH_SOMETHING_NEW"])
        self.assertEqual(got["NVIDIA_TF32_OVERRIDE"], "0")

    def test_secrets_are_redacted_and_long_values_clipped(self):
        got = S.relevant_env({"NVIDIA_API_KEY": "nvapi-secret", "CUDA_X": "y" * 1000, "TORCH_HUB_TOKEN": "t"})
        self.assertEqual(got["NVIDIA_API_KEY"], S.REDACTED)
        self.assertEqual(got["TORCH_HUB_TOKEN"], S.REDACTED)
        self.assertEqual(len(got["CUDA_X"]), S.MAX_VALUE_CHARS)


class HelpersTest(unittest.TestCase):
    def test_cpu_list_is_the_kernel_format(self):
        self.assertEqual(S._cpu_list([0, 1, 2, 5, 7, 8]), "0-2,5,7-8")
        self.assertEqual(S._cpu_list([3]), "3")

    def test_mapped_libraries_of_this_process(self):
        libs = S.mapped_libraries()
        if libs is None:
            self.skipTest("no /proc/self/maps")
        self.assertTrue(any("libc" in p for p in libs.get("libc", [])), libs)

    def test_cpu_facts_match_the_affinity(self):
        facts = S.cpu_facts()
        if hasattr(os, "sched_getaffinity"):
            self.assertEqual(facts["affinity_count"], len(os.sched_getaffinity(0)))


@skip_without_compute
class StackEventTest(WorkloadTestCase):
    def run_matmul(self, env=None):
        run = run_workload("matmul.py", ["--device", "cpu", "--size", "64", "--iters", "3", "--warmup", "1"], env=env)
        self.assertProtocol(run, "matmul")
        return run

    def test_one_stack_event_before_the_samples_with_the_blas_that_answers(self):
        run = self.run_matmul()
        kinds = [e["event"] for e in run.events]
        self.assertEqual(kinds.count("stack"), 1)
        self.assertLess(kinds.index("stack"), kinds.index("sample"))
        st = run.of("stack")[0]
        self.assertTrue(st["python"]["version"])
        if run.env["backend"] == "numpy":
            blas = st["numpy"]["blas"]
            self.assertIn(blas["name"], BLAS_KINDS, blas)
            self.assertTrue(os.path.exists(blas["library"]), blas)
            # The loaded library is also in the stack's library list, by the same file.
            self.assertIn(blas["library"], st["libraries"]["blas"])

    def test_variables_of_the_process_are_recorded(self):
        run = self.run_matmul({"OPENBLAS_NUM_THREADS": "1", "NVIDIA_TF32_OVERRIDE": "0", "UNRELATED_VAR": "x"})
        env = run.of("stack")[0]["env"]
        self.assertEqual(env["OPENBLAS_NUM_THREADS"], "1")
        self.assertEqual(env["NVIDIA_TF32_OVERRIDE"], "0")
        self.assertNotIn("UNRELATED_VAR", env)
        if run.env["backend"] == "numpy" and run.of("stack")[0]["numpy"]["blas"]["name"] == "openblas":
            self.assertEqual(run.of("stack")[0]["numpy"]["blas"]["threads"], 1)

    def test_measured_region_encloses_the_samples(self):
        run = self.run_matmul()
        edges = run.of("region")
        self.assertEqual([e["edge"] for e in edges], ["start", "end"])
        measured = run.summary["measured_s"]
        self.assertGreaterEqual(edges[1]["epoch_s"] - edges[0]["epoch_s"], measured - 0.01)

    def test_reference_blas_is_named_where_numpy_links_it(self):
        # Debian's python3-numpy resolves libblas.so.3 through alternatives; with libblas3 alone that is
        # the reference BLAS, which has no vendor API: the stack must say "reference", not guess.
        if not has_module("numpy"):
            self.skipTest("numpy is not importable")
        code = "import sys; sys.path.insert(0, %r); import numpy, json, _stack; print(json.dumps(_stack.collect(np=numpy)['numpy']['blas']))" % os.path.dirname(S.__file__)
        out = subprocess.run([python(), "-c", code], stdout=subprocess.PIPE, check=True).stdout.decode()
        import json

        blas = json.loads(out)
        base = os.path.basename(blas["library"] or "")
        if base.startswith("libblas.so"):
            self.assertEqual(blas["name"], "reference", blas)
        else:
            self.assertIn(blas["name"], BLAS_KINDS, blas)


if __name__ == "__main__":
    unittest.main()
