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


class CgroupLimitsTest(unittest.TestCase):
    """cgroup_limits on cgroup trees laid out as the kernel does (v2 unified, v1 per controller)."""

    def tree(self, files, own):
        import tempfile

        root = tempfile.mkdtemp(prefix="cgroup-test-")
        self.addCleanup(__import__("shutil").rmtree, root)
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text + "\n")
        proc = os.path.join(root, "proc-self-cgroup")
        with open(proc, "w") as f:
            f.write(own)
        return root, proc

    def test_v2_native_process_reads_its_own_slice_and_ancestors(self):
        # The host's root has no cpu.max; the runner's slice caps CPUs at 2, the job's scope below it does not.
        root, proc = self.tree(
            {
                "cgroup.controllers": "cpu memory",
                "runner.slice/cpu.max": "200000 100000",
                "runner.slice/memory.max": "max",
                "runner.slice/job.scope/cpu.max": "max 100000",
                "runner.slice/job.scope/memory.max": "8589934592",
            },
            "0::/runner.slice/job.scope\n",
        )
        self.assertEqual(S.cgroup_limits(root, proc), ("200000 100000", "8589934592"))

    def test_no_limit_reads_max_however_it_is_spelt(self):
        # A native process in the v2 root (no files) and a container with its own namespace ("max 100000").
        root, proc = self.tree({"cgroup.controllers": "cpu"}, "0::/\n")
        self.assertEqual(S.cgroup_limits(root, proc), ("max", "max"))
        root, proc = self.tree({"cgroup.controllers": "cpu", "cpu.max": "max 100000", "memory.max": "max"}, "0::/\n")
        self.assertEqual(S.cgroup_limits(root, proc), ("max", "max"))
        # v1 (and hybrid hosts): -1 and a page-rounded LONG_MAX.
        root, proc = self.tree(
            {
                "cpu/cpu.cfs_quota_us": "-1",
                "cpu/cpu.cfs_period_us": "100000",
                "memory/memory.limit_in_bytes": "9223372036854771712",
            },
            "4:memory:/\n1:cpu,cpuacct:/\n0::/\n",
        )
        self.assertEqual(S.cgroup_limits(root, proc), ("max", "max"))

    def test_v1_limits_along_the_process_path(self):
        root, proc = self.tree(
            {
                "cpu/cpu.cfs_quota_us": "-1",
                "cpu/cpu.cfs_period_us": "100000",
                "cpu/docker/abc/cpu.cfs_quota_us": "150000",
                "cpu/docker/abc/cpu.cfs_period_us": "100000",
                "memory/memory.limit_in_bytes": "9223372036854771712",
                "memory/docker/abc/memory.limit_in_bytes": "4294967296",
            },
            "4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n",
        )
        self.assertEqual(S.cgroup_limits(root, proc), ("150000 100000", "4294967296"))

    def test_a_path_that_leaves_the_mount_reads_the_mount_only(self):
        root, proc = self.tree({"cgroup.controllers": "cpu", "cpu.max": "50000 100000"}, "0::/../../etc\n")
        self.assertEqual(S.cgroup_limits(root, proc), ("50000 100000", "max"))

    def test_a_quota_of_every_cpu_the_process_may_use_is_no_limit(self):
        # A 2-CPU quota on a 2-CPU host (a CI container's --cpus 2) holds nothing back: it must not read as an
        # allotment the other arm lacks (Debian 13 container, 2026-12-06: it outranked the BLAS in "why").
        self.assertEqual(S.effective_cpu_limit("200000 100000", 2), "max")
        self.assertEqual(S.effective_cpu_limit("300000 100000", 2), "max")
        self.assertEqual(S.effective_cpu_limit("150000 100000", 2), "150000 100000")
        self.assertEqual(S.effective_cpu_limit("200000 100000", 4), "200000 100000")
        self.assertEqual(S.effective_cpu_limit("max", 2), "max")
        self.assertIsNone(S.effective_cpu_limit(None, 2))
        self.assertEqual(S.effective_cpu_limit("200000 100000", None), "200000 100000")

    def test_nothing_to_read_is_unknown(self):
        root, proc = self.tree({}, "")
        self.assertEqual(S.cgroup_limits(root, proc), (None, None))


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
        # Debian's python3-numpy resolves libblas.so.3 through alternatives: with libblas3 alone that is the
        # reference BLAS, which has no vendor API: the stack must say "reference", not guess. With
        # libopenblas0-pthread installed the alternative is OpenBLAS's own libblas.so.3 (in openblas-pthread/),
        # which the stack names by its API: either way the name follows the library, not the file name.
        if not has_module("numpy"):
            self.skipTest("numpy is not importable")
        code = "import sys; sys.path.insert(0, %r); import numpy, json, _stack; print(json.dumps(_stack.collect(np=numpy)['numpy']['blas']))" % os.path.dirname(S.__file__)
        out = subprocess.run([python(), "-c", code], stdout=subprocess.PIPE, check=True).stdout.decode()
        import json

        blas = json.loads(out)
        library = os.path.realpath(blas["library"] or "")
        base = os.path.basename(library)
        if "openblas" in os.path.dirname(library):
            self.assertEqual(blas["name"], "openblas", blas)
        elif base.startswith("libblas.so"):
            self.assertEqual(blas["name"], "reference", blas)
        else:
            self.assertIn(blas["name"], BLAS_KINDS, blas)


if __name__ == "__main__":
    unittest.main()
