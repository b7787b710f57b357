"""Helpers for the workload tests: run a workload as a subprocess and check its protocol."""

import json
import os
import subprocess
import sys
import unittest

WORKLOADS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBER = (int, float)
KNOWN = {
    "start": {"workload": str, "proc_start_epoch_s": NUMBER + (type(None),), "epoch_s": NUMBER, "params": dict},
    "env": {},
    "phase": {"name": str, "duration_s": NUMBER, "end_epoch_s": NUMBER},
    "sample": {"metric": str, "value": NUMBER, "unit": str, "iteration": int, "better": str},
    "summary": {},
    "error": {"type": str, "message": str},
    "stack": {"python": dict, "cpu": dict, "env": dict},
    "memory": {"after": str},
    "region": {"edge": str, "epoch_s": NUMBER},
    "peers": {"scope": str},
    "turn": {"edge": str, "iteration": int},
}
PHASES = ("interpreter", "imports", "device_init", "first_kernel", "prepare")
ERROR_TYPES = ("oom", "no_gpu", "missing_backend", "bad_args", "runtime")


def python():
    """The interpreter the workloads run under: CI's Debian python3 (numpy, no torch) by default."""
    env = os.environ.get("GPU_OVERHEAD_TEST_PYTHON")
    if env:
        return env
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


_HAS = {}


def has_module(name):
    """Whether the workloads' interpreter can import `name` (cached per test process)."""
    if name not in _HAS:
        code = "import importlib.util,sys; sys.exit(0 if importlib.util.find_spec(%r) else 1)" % name
        _HAS[name] = subprocess.run([python(), "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    return _HAS[name]


def can_compute():
    """matmul and llm on the CPU need numpy or torch in the workloads' interpreter."""
    return has_module("numpy") or has_module("torch")


def skip_without_compute(test):
    return unittest.skipUnless(can_compute(), "neither numpy nor torch in %s" % python())(test)


class Run(object):
    def __init__(self, rc, events, stdout, stderr):
        self.rc, self.events, self.stdout, self.stderr = rc, events, stdout, stderr

    def of(self, event):
        return [e for e in self.events if e["event"] == event]

    def samples(self, metric):
        return [e for e in self.events if e["event"] == "sample" and e["metric"] == metric]

    @property
    def summary(self):
        s = self.of("summary")
        return s[0] if s else None

    @property
    def env(self):
        s = self.of("env")
        return s[0] if s else None


def run_workload(script, args, timeout=300, env=None, cwd=None, script_dir=WORKLOADS):
    full_env = dict(os.environ)
    full_env["PYTHONDONTWRITEBYTECODE"] = "1"
    full_env.update(env or {})
    proc = subprocess.run(
        [python(), os.path.join(script_dir, script)] + list(args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=timeout,
        env=full_env,
        cwd=cwd,
    )
    out = proc.stdout.decode("utf-8")
    return Run(proc.returncode, parse_lines(out), out, proc.stderr.decode("utf-8", "replace"))


def parse_lines(text):
    """Every stdout line must be one JSON object of a known event with the required fields."""
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            ev = json.loads(line)
        except ValueError:
            raise AssertionError("stdout line %d is not JSON: %r" % (n, line[:200]))
        if not isinstance(ev, dict) or ev.get("event") not in KNOWN:
            raise AssertionError("stdout line %d is not a known event: %r" % (n, line[:200]))
        for key, types in KNOWN[ev["event"]].items():
            if key not in ev:
                raise AssertionError("%s event lacks %r: %r" % (ev["event"], key, line[:200]))
            if isinstance(ev[key], bool) or not isinstance(ev[key], types):
                raise AssertionError("%s.%s has the wrong type: %r" % (ev["event"], key, line[:200]))
        events.append(ev)
    return events


class WorkloadTestCase(unittest.TestCase):
    def assertProtocol(self, run, workload, ok=True):
        """Ordering and exit-code rules shared by every workload run."""
        ev = run.events
        self.assertTrue(ev, "no events; stderr:\n" + run.stderr[-2000:])
        self.assertEqual(ev[0]["event"], "start", ev[0])
        self.assertEqual(ev[0]["workload"], workload)
        self.assertEqual(len(run.of("start")), 1)
        if ok:
            self.assertEqual(run.rc, 0, "exit %d; stderr:\n%s" % (run.rc, run.stderr[-3000:]))
            self.assertEqual(ev[-1]["event"], "summary")
            self.assertEqual(len(run.of("summary")), 1)
            self.assertEqual(run.of("error"), [])
            self.assertEqual(len(run.of("env")), 1)
            names = [p["name"] for p in run.of("phase")]
            if ev[0]["proc_start_epoch_s"] is None:
                names.insert(0, "interpreter")
            self.assertEqual(names, list(PHASES))
            for p in run.of("phase"):
                self.assertGreaterEqual(p["duration_s"], 0)
                self.assertLess(p["duration_s"], 120)
            # `prepare` closes start-up where measuring starts: it ends at the first region start, before it.
            prepare = run.of("phase")[-1]
            first_region = run.of("region")[0]
            self.assertEqual(first_region["edge"], "start")
            self.assertLess(ev.index(prepare), ev.index(first_region))
            self.assertAlmostEqual(prepare["end_epoch_s"], first_region["epoch_s"], delta=0.05)
            for s in run.of("sample"):
                # A per-process value (a tail percentile) counts from 0: the configuration's index.
                self.assertGreaterEqual(s["iteration"], 0 if s.get("per_process") is True else 1)
                # Every sample declares its direction; derived ones name the metric they come from.
                self.assertIn(s["better"], ("lower", "higher"), s)
                if "derived_from" in s:
                    self.assertTrue(s["derived_from"], s)
            self.assertRegions(run)
        else:
            self.assertNotEqual(run.rc, 0)
            self.assertEqual(ev[-1]["event"], "error")
            self.assertIn(ev[-1]["type"], ERROR_TYPES)
            self.assertEqual(run.of("summary"), [])

    def assertRegions(self, run):
        """Measured regions: start/end pairs in order, inside the process's life, samples after a start."""
        edges = [e for e in run.events if e["event"] == "region"]
        self.assertEqual([e["edge"] for e in edges], ["start", "end"] * (len(edges) // 2), edges)
        self.assertEqual(len(edges) % 2, 0)
        for a, b in zip(edges[::2], edges[1::2]):
            self.assertLessEqual(a["epoch_s"], b["epoch_s"])
            self.assertGreaterEqual(a["epoch_s"], run.events[0]["epoch_s"])

    def assertError(self, run, workload, type_, code):
        self.assertProtocol(run, workload, ok=False)
        self.assertEqual(run.events[-1]["type"], type_, run.events[-1])
        self.assertEqual(run.rc, code, run.stderr[-2000:])
        self.assertTrue(run.events[-1]["message"])
