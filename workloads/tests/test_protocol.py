"""The JSON-lines protocol: only events on stdout, start first, errors as events with exit codes."""

import json
import math
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from workloads.tests._util import WORKLOADS, WorkloadTestCase, can_compute, has_module, parse_lines, python, run_workload, skip_without_compute
from workloads import _protocol as P
from workloads import _stats as S


class HelpersTest(unittest.TestCase):
    def test_percentile_matches_linear_interpolation(self):
        vals = [5.0, 1.0, 4.0, 2.0, 3.0]
        self.assertEqual(S.percentile(vals, 50), 3.0)
        self.assertEqual(S.percentile(vals, 0), 1.0)
        self.assertEqual(S.percentile(vals, 100), 5.0)
        self.assertAlmostEqual(S.percentile(vals, 90), 4.6)
        self.assertAlmostEqual(S.percentile([1.0, 2.0], 99), 1.99)
        self.assertIsNone(S.percentile([], 50))

    def test_describe(self):
        d = S.describe([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
        self.assertEqual(d["n"], 8)
        self.assertEqual(d["mean"], 5.0)
        self.assertEqual(d["median"], 4.5)
        self.assertAlmostEqual(d["sd"], math.sqrt(32 / 7.0))
        self.assertAlmostEqual(d["cv_pct"], 100 * math.sqrt(32 / 7.0) / 5.0)

    def test_non_finite_numbers_become_null(self):
        self.assertEqual(P._finite({"a": float("nan"), "b": [float("inf"), 1.5], "c": (1, "x")}), {"a": None, "b": [None, 1.5], "c": [1, "x"]})

    def test_proc_start_is_before_now_and_recent(self):
        start, source = P.proc_start_epoch()
        if start is None:
            self.skipTest("no /proc/self/stat here: " + source)
        self.assertIn(source, ("boottime", "btime"))
        self.assertLessEqual(start, time.time() + 0.05)
        self.assertLess(time.time() - start, 3600 * 24 * 365)

    def test_int_list(self):
        self.assertEqual(P.int_list("8,16"), [8, 16])
        for bad in ("", "a", "0", "-1,2"):
            with self.assertRaises(Exception):
                P.int_list(bad)


class DirectionTest(WorkloadTestCase):
    def test_sample_without_a_declared_direction_is_refused(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        script = os.path.join(tmp, "nodir.py")
        with open(script, "w") as f:
            f.write(
                "import sys, time\n"
                "T0 = (time.time(), time.perf_counter())\n"
                "sys.path.insert(0, %r)\n"
                "import _protocol as P\n"
                "def main(proto, argv):\n"
                "    proto.start({})\n"
                "    proto.sample('m', 1.0, 'ms', 1, 'up')\n"
                "P.run(P.Protocol('nodir', *T0), main)\n" % WORKLOADS
            )
        proc = subprocess.run([python(), script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        events = parse_lines(proc.stdout.decode())
        self.assertNotEqual(proc.returncode, 0)
        self.assertEqual([e["event"] for e in events if e["event"] == "sample"], [])
        self.assertIn("better must be one of lower/higher", events[-1]["message"])


class StdoutTest(WorkloadTestCase):
    def test_stray_output_goes_to_stderr(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        script = os.path.join(tmp, "noisy.py")
        with open(script, "w") as f:
            f.write(
                "import sys, time\n"
                "T0 = (time.time(), time.perf_counter())\n"
                "sys.path.insert(0, %r)\n"
                "import os, _protocol as P\n"
                "def main(proto, argv):\n"
                "    proto.start({'x': 1})\n"
                "    print('python print')\n"
                "    os.write(1, b'C library write\\n')\n"
                "    proto.sample('m', 1.0, 'ms', 1, 'lower')\n"
                "    proto.summary({'nan': float('nan')})\n"
                "P.run(P.Protocol('noisy', *T0), main)\n" % WORKLOADS
            )
        proc = subprocess.run([python(), script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        events = parse_lines(proc.stdout.decode())
        self.assertEqual([e["event"] for e in events if e["event"] != "phase"], ["start", "sample", "summary"])
        self.assertIsNone(events[-1]["nan"])
        err = proc.stderr.decode()
        self.assertIn("python print", err)
        self.assertIn("C library write", err)

    def test_unexpected_exception_is_a_runtime_error_event(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        script = os.path.join(tmp, "boom.py")
        with open(script, "w") as f:
            f.write(
                "import sys, time\n"
                "T0 = (time.time(), time.perf_counter())\n"
                "sys.path.insert(0, %r)\n"
                "import _protocol as P\n"
                "def main(proto, argv):\n"
                "    raise ValueError('boom')\n"
                "P.run(P.Protocol('boom', *T0), main)\n" % WORKLOADS
            )
        proc = subprocess.run([python(), script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        events = parse_lines(proc.stdout.decode())
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(events[0]["event"], "start")
        self.assertEqual(events[-1], {"event": "error", "type": "runtime", "message": "ValueError: boom"})


class BadArgsTest(WorkloadTestCase):
    """argparse problems come out as bad_args error events with exit 2, for every workload."""

    CASES = [
        ("matmul", "matmul.py", ["--bogus"]),
        ("matmul", "matmul.py", ["--device", "tpu"]),
        ("matmul", "matmul.py", ["--device", "cpu", "--iters", "0"]),
        ("matmul", "matmul.py", ["--device", "cpu", "--size", "x"]),
        ("matmul", "matmul.py", ["--device", "cpu", "--dtype", "fp8"]),
        ("matmul", "matmul.py", ["--device", "cpu", "--backend", "cupy"]),
        ("llm", "llm.py", ["--device", "cpu", "--output-lens", "1"]),
        ("llm", "llm.py", ["--device", "cpu", "--batch-sizes", "a,b"]),
        ("llm", "llm.py", ["--device", "cpu", "--heads", "3"]),
        ("llm", "llm.py", ["--device", "cpu", "--warmup", "-1"]),
        ("llm", "llm.py", ["--device", "cpu", "--model-path", "/nonexistent/model"]),
        ("llm", "llm.py", ["--backend", "numpy"]),
        ("io", "io.py", ["--only", "nothing"]),
        ("io", "io.py", ["--ckpt-mb", "0"]),
        ("io", "io.py", ["--scratch", "/nonexistent/scratch"]),
        ("io", "io.py", ["--data", "/nonexistent/data"]),
    ]

    def test_bad_args(self):
        for workload, script, args in self.CASES:
            with self.subTest(script=script, args=args):
                run = run_workload(script, args)
                self.assertError(run, workload, "bad_args", 2)
                self.assertEqual(run.events[0]["params"], {"argv": args})

    def test_help_prints_nothing_on_stdout(self):
        for script in ("matmul.py", "llm.py", "io.py"):
            run = run_workload(script, ["--help"])
            self.assertEqual(run.rc, 0)
            self.assertEqual(run.stdout, "")
            self.assertIn("--device", run.stderr)


class MissingBackendTest(WorkloadTestCase):
    def test_gpu_without_torch(self):
        if has_module("torch"):
            self.skipTest("torch is importable here")
        for workload, script in (("matmul", "matmul.py"), ("llm", "llm.py")):
            with self.subTest(workload=workload):
                self.assertError(run_workload(script, ["--device", "gpu"]), workload, "missing_backend", 2)

    def test_explicit_torch_backend_on_cpu_without_torch(self):
        if has_module("torch"):
            self.skipTest("torch is importable here")
        self.assertError(run_workload("matmul.py", ["--device", "cpu", "--backend", "torch"]), "matmul", "missing_backend", 2)

    def test_tensorflow_backend_absent(self):
        if has_module("tensorflow"):
            self.skipTest("tensorflow is importable here")
        run = run_workload("matmul.py", ["--device", "cpu", "--backend", "tensorflow"])
        self.assertError(run, "matmul", "missing_backend", 2)
        self.assertIn("tensorflow", run.events[-1]["message"])

    def test_gpu_index_must_be_a_number(self):
        run = run_workload("matmul.py", ["--device", "gpu"], env={"GPU_OVERHEAD_GPU": "first"})
        self.assertError(run, "matmul", "bad_args", 2)


class ReadOnlyTest(WorkloadTestCase):
    def test_no_bytecode_written_next_to_the_scripts(self):
        # The folder is mounted read-only in containers: the scripts must not need to write there.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        copy = os.path.join(tmp, "workloads")
        os.mkdir(copy)
        # Every module the workloads import (the protocol, helpers, backends), as the image gets them.
        names = sorted(n for n in os.listdir(WORKLOADS) if (n.endswith(".py") and n != "__init__.py") or n.endswith(".json"))
        for name in names:
            shutil.copy(os.path.join(WORKLOADS, name), copy)
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        scratch = os.path.join(tmp, "scratch")
        os.mkdir(scratch)
        runs = [("io.py", ["--only", "scratch", "--ckpt-mb", "1", "--iters", "1", "--scratch", scratch])]
        if can_compute():
            runs += [
                ("matmul.py", ["--device", "cpu", "--size", "32", "--iters", "2"]),
                ("llm.py", ["--device", "cpu", "--iters", "1", "--output-lens", "2", "--prompt-lens", "4"]),
            ]
        for script, args in runs:
            proc = subprocess.run([python(), os.path.join(copy, script)] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120)
            self.assertEqual(proc.returncode, 0, proc.stderr.decode()[-2000:])
            parse_lines(proc.stdout.decode())
        self.assertEqual(sorted(os.listdir(copy)), names)


if __name__ == "__main__":
    unittest.main()


class HoldTest(unittest.TestCase):
    """Prestart: a held workload stops after its imports and waits for "go" on stdin before any device work."""

    def _start(self, script, args):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", GPU_OVERHEAD_HOLD="stdin")
        return subprocess.Popen(
            [python(), os.path.join(WORKLOADS, script)] + args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )

    def _read_until_imports(self, proc):
        seen = []
        while True:
            line = proc.stdout.readline().decode()
            self.assertTrue(line, "the workload ended before its imports phase: %r" % seen)
            ev = json.loads(line)
            seen.append(ev)
            if ev.get("event") == "phase" and ev.get("name") == "imports":
                return seen

    def test_waits_for_go_then_reports_the_wait_as_held(self):
        for script, args in (("matmul.py", ["--device", "cpu", "--iters", "2", "--warmup", "1"]), ("io.py", ["--only", "scratch", "--scratch-mb", "1", "--iters", "1", "--warmup", "0"])):
            with self.subTest(script=script):
                proc = self._start(script, args)
                before = self._read_until_imports(proc)
                self.assertFalse(any(e.get("name") == "device_init" for e in before))
                time.sleep(0.3)  # held: nothing more may happen until "go"
                self.assertIsNone(proc.poll())
                out, err = proc.communicate(b"go\n", timeout=120)
                self.assertEqual(proc.returncode, 0, err.decode()[-500:])
                events = parse_lines(out.decode())
                phases = [e["name"] for e in events if e["event"] == "phase"]
                self.assertEqual(phases[:1], ["held"])
                self.assertIn("device_init", phases)
                held = next(e for e in events if e.get("name") == "held")
                self.assertGreaterEqual(held["duration_s"], 0.25)
                self.assertTrue(any(e["event"] == "summary" for e in events))

    def test_end_of_input_without_go_leaves_quietly(self):
        proc = self._start("matmul.py", ["--device", "cpu", "--iters", "2"])
        self._read_until_imports(proc)
        out, _ = proc.communicate(b"", timeout=60)
        self.assertEqual(proc.returncode, P.HELD_EXIT)
        self.assertEqual(out, b"")


@skip_without_compute
class TurnsTest(unittest.TestCase):
    """Turns: before each measured request the workload gives the GPU back (`turn` wait) and waits for "turn"."""

    ARGS = ["--device", "cpu", "--iters", "3", "--warmup", "1", "--output-lens", "2", "--prompt-lens", "4"]

    def _start(self):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", GPU_OVERHEAD_TURNS="stdin")
        return subprocess.Popen(
            [python(), os.path.join(WORKLOADS, "llm.py")] + self.ARGS,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )

    def _next(self, proc, seen):
        line = proc.stdout.readline().decode()
        self.assertTrue(line, "the workload ended early: %r" % seen[-5:])
        ev = parse_lines(line)[0]
        seen.append(ev)
        return ev

    def test_one_request_per_turn_then_done(self):
        proc = self._start()
        seen = []
        turns = 0
        while True:
            ev = self._next(proc, seen)
            if ev["event"] == "turn" and ev["edge"] == "wait":
                self.assertEqual(ev["iteration"], turns + 1)
                # Nothing of this iteration was measured before the turn was given.
                self.assertFalse([e for e in seen if e["event"] == "sample" and e["iteration"] == turns + 1])
                time.sleep(0.2)
                self.assertIsNone(proc.poll())
                # While it waits, it writes nothing.
                self.assertEqual(seen[-1], ev)
                proc.stdin.write(b"turn\n")
                proc.stdin.flush()
                turns += 1
            elif ev["event"] == "turn":
                self.assertEqual(ev["edge"], "done")
                break
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err.decode()[-500:])
        self.assertEqual(turns, 3)
        self.assertEqual(seen[-1], {"event": "turn", "edge": "done", "iteration": 3})
        self.assertEqual(seen[-2]["event"], "summary")
        tpot = [e for e in seen if e["event"] == "sample" and e["metric"] == "tpot_ms"]
        self.assertEqual([e["iteration"] for e in tpot], [1, 2, 3])
        # Every request's samples come after its own turn and before the next wait.
        waits = [i for i, e in enumerate(seen) if e["event"] == "turn" and e["edge"] == "wait"]
        for k, w in enumerate(waits):
            nxt = waits[k + 1] if k + 1 < len(waits) else len(seen)
            self.assertEqual([e["iteration"] for e in seen[w:nxt] if e.get("metric") == "tpot_ms"], [k + 1])

    def test_end_of_input_mid_block_is_an_error(self):
        proc = self._start()
        seen = []
        while True:
            ev = self._next(proc, seen)
            if ev["event"] == "turn":
                break
        proc.stdin.write(b"turn\n")
        proc.stdin.flush()
        while True:
            ev = self._next(proc, seen)
            if ev["event"] == "turn":
                break
        out, _ = proc.communicate(b"", timeout=60)
        events = parse_lines(out.decode())
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(events[-1]["event"], "error")
        self.assertIn("ended the turns before iteration 2", events[-1]["message"])
