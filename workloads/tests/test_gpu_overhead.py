"""The protocol helper users copy (workloads/gpu_overhead.py): an exception becomes one bounded error event that
keeps the real error. A DataLoader worker's failure is re-raised in the main process with the worker's traceback
in its message; the cause ("unable to write to file </torch_…>: No space left on device", /dev/shm full) is its
last line, which a cut at 500 characters lost on an H100 (docs/evidence/2026-11-27-dataloader.md)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.dirname(HERE)

# The shape of torch.utils.data's re-raise (torch/_utils.py ExceptionWrapper.reraise): a first line, the
# worker's traceback, the worker's error last.
WORKER_TRACEBACK = "\n".join(
    ["Caught RuntimeError in DataLoader worker process 1.", "Original Traceback (most recent call last):"]
    + ['  File "/opt/torch/lib/python3.12/site-packages/torch/utils/data/_utils/worker.py", line %d, in _worker_loop' % i for i in range(40)]
    + ["RuntimeError: unable to write to file </torch_4242_1838461929_0>: No space left on device (28)"]
)

SCRIPT = """
import sys
sys.path.insert(0, %r)
import gpu_overhead
with gpu_overhead.Benchmark("loader") as bench:
    bench.sample("batch_ms", 1.0, "ms", "lower")
    raise RuntimeError(%r)
"""


class ErrorEventTest(unittest.TestCase):
    def run_failing(self, message):
        with tempfile.TemporaryDirectory() as d:
            events = os.path.join(d, "events.jsonl")
            open(events, "w").close()
            env = dict(os.environ, GPU_OVERHEAD_EVENTS=events)
            p = subprocess.run([sys.executable, "-c", SCRIPT % (WORKLOADS, message)], env=env, capture_output=True, text=True, timeout=60)
            self.assertNotEqual(p.returncode, 0)
            with open(events) as f:
                return [json.loads(l) for l in f if l.strip()]

    def test_a_re_raised_worker_error_keeps_its_last_line(self):
        errors = [e for e in self.run_failing(WORKER_TRACEBACK) if e["event"] == "error"]
        self.assertEqual(len(errors), 1)
        msg = errors[0]["message"]
        self.assertTrue(msg.startswith("RuntimeError: Caught RuntimeError in DataLoader worker process 1."), msg)
        self.assertIn("unable to write to file </torch_4242_1838461929_0>: No space left on device (28)", msg)
        self.assertNotIn("\n", msg)
        self.assertLessEqual(len(msg), 520)

    def test_a_one_line_message_is_kept_and_bounded(self):
        msg = [e for e in self.run_failing("x" * 2000) if e["event"] == "error"][0]["message"]
        self.assertEqual(msg, "RuntimeError: " + "x" * 500)


class FramedStdoutTest(unittest.TestCase):
    """GPU_OVERHEAD_EVENTS=stdout (a launcher that shares no folder with the runner): every event on stdout,
    framed with the protocol's version; what the script itself prints there stays unframed (the run's log)."""

    def test_every_event_is_framed_and_a_print_is_not(self):
        script = "import sys\nsys.path.insert(0, %r)\nimport gpu_overhead\nprint('banner')\n" % WORKLOADS
        script += "with gpu_overhead.Benchmark('framed') as b:\n    b.sample('x_ms', 1.0, 'ms', 'lower')\n"
        env = dict(os.environ, GPU_OVERHEAD_EVENTS="stdout", GPU_OVERHEAD_RUN_ID="run-7")
        p = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        self.assertIn("banner", lines)
        framed = [json.loads(l[len("gpu-overhead:2 "):]) for l in lines if l.startswith("gpu-overhead:2 ")]
        self.assertEqual(len(framed), len(lines) - 1)
        self.assertEqual(framed[0]["event"], "start")
        self.assertIn("sample", [e["event"] for e in framed])


if __name__ == "__main__":
    unittest.main()
