"""Protocol version 2 (issue 26): events on their own channel, the file GPU_OVERHEAD_EVENTS names; stdout is
left to the image and the libraries. io names its files so concurrent processes never share one."""

import json
import os
import shutil
import tempfile
import unittest

from ._util import run_workload


def read_events(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class ChannelTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.events = os.path.join(self.tmp, "events.jsonl")
        open(self.events, "w").close()

    def test_events_go_to_the_channel_with_version_and_run_id(self):
        r = run_workload(
            "io.py",
            ["--device", "cpu", "--ckpt", self.tmp, "--data", self.tmp, "--only", "ckpt", "--ckpt-mb", "1", "--iters", "1", "--warmup", "0"],
            env={"GPU_OVERHEAD_EVENTS": self.events, "GPU_OVERHEAD_RUN_ID": "run-42"},
        )
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertEqual(r.events, [])  # nothing on stdout
        events = read_events(self.events)
        start = events[0]
        self.assertEqual(start["event"], "start")
        self.assertEqual(start["protocol"], 2)
        self.assertEqual(start["run_id"], "run-42")
        self.assertTrue(any(e["event"] == "sample" and e["metric"] == "ckpt_write_mb_s" for e in events))
        self.assertEqual(events[-1]["event"], "summary")

    def test_a_channel_that_is_a_link_is_never_written_through(self):
        victim = os.path.join(self.tmp, "victim")
        with open(victim, "w") as f:
            f.write("keep")
        link = os.path.join(self.tmp, "link.jsonl")
        os.symlink(victim, link)
        r = run_workload("io.py", ["--device", "cpu", "--only", "ckpt", "--ckpt", self.tmp], env={"GPU_OVERHEAD_EVENTS": link})
        self.assertEqual(r.rc, 2)
        self.assertIn("cannot open the events channel", r.stderr)
        with open(victim) as f:
            self.assertEqual(f.read(), "keep")


class UniqueNamesTest(unittest.TestCase):
    def test_checkpoint_and_scratch_names_are_not_pids_and_never_reused(self):
        import importlib.util

        here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "io.py")
        spec = importlib.util.spec_from_file_location("io_workload", here)
        io_mod = importlib.util.module_from_spec(spec)
        import sys

        sys.path.insert(0, os.path.dirname(here))
        try:
            spec.loader.exec_module(io_mod)
        finally:
            sys.path.pop(0)
        names = {io_mod.unique_name("/ckpt", "gpu-overhead-ckpt") for _ in range(1000)}
        self.assertEqual(len(names), 1000)
        self.assertFalse(any(str(os.getpid()) == n.split("-")[-1].split(".")[0] for n in names))
        # A planted file (or link) at the name is never written through: O_EXCL | O_NOFOLLOW.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("keep")
        planted = os.path.join(tmp, "planted.bin")
        os.symlink(victim, planted)
        with self.assertRaises(OSError):
            io_mod.write_file(planted, 1024, bytearray(1024))
        with open(victim) as f:
            self.assertEqual(f.read(), "keep")


if __name__ == "__main__":
    unittest.main()
