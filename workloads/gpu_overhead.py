"""gpu_overhead: report your own benchmark to gpu-overhead-action (protocol version 2, docs/protocol.md).

Standard library only; import it from the folder the runner names (GPU_OVERHEAD_HELPER), or copy this file.

    import os, sys
    sys.path.insert(0, os.environ.get("GPU_OVERHEAD_HELPER", "."))
    import gpu_overhead

    with gpu_overhead.Benchmark("mybench", params={"batch": 8}) as bench:
        model = load()                      # start-up: reported as the `imports` phase
        bench.phase("device_init")          # ends the next start-up phase (names: see PHASES)
        for i in range(20):
            with bench.measure("step_ms"):  # one sample per block: milliseconds, lower is better
                model.step()
        bench.sample("tokens_per_s", 1234.0, "tok/s", better="higher")

Events go to the file GPU_OVERHEAD_EVENTS names (the runner's channel); without it, to stdout. The first
measurement opens the measured region (telemetry is attributed to it); leaving the block closes it and writes
the summary. An exception becomes an `error` event and a non-zero exit, as the built-in workloads do.
"""

import json
import math
import os
import sys
import time

PROTOCOL_VERSION = 2
# GPU_OVERHEAD_EVENTS=stdout (a runner that shares no folder with this process): events framed on stdout.
EVENTS_ON_STDOUT = "stdout"
EVENT_FRAME = "gpu-overhead:%d " % PROTOCOL_VERSION
PHASES = ("imports", "device_init", "first_kernel")
_T0 = (time.time(), time.perf_counter())


def _finite(v):
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {str(k): _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v if v is None or isinstance(v, (str, bool, int)) else str(v)


def _gist(message, limit=500):
    """An exception's message in one bounded line: its first line and, for a message that carries a traceback
    (a DataLoader worker's error re-raised in the main process), its last line, where the real error is."""
    lines = [l.strip() for l in message.strip().splitlines() if l.strip()]
    if len(lines) <= 1:
        return (lines[0] if lines else "")[:limit]
    head, tail = lines[0][: limit // 2], lines[-1][-(limit // 2) :]
    return "%s … %s" % (head, tail)


def _open_channel():
    path = os.environ.get("GPU_OVERHEAD_EVENTS")
    if not path or path == EVENTS_ON_STDOUT:
        return sys.stdout
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.fdopen(os.open(path, flags), "w", encoding="utf-8", buffering=1)


class Benchmark(object):
    def __init__(self, name, params=None):
        self.name = name
        self.params = dict(params or {})
        self.out = _open_channel()
        self.frame = EVENT_FRAME if os.environ.get("GPU_OVERHEAD_EVENTS") == EVENTS_ON_STDOUT else ""
        self.iteration = {}
        self.in_region = False
        self.region_start = None
        self.last_phase = _T0[1]
        self.measured_s = 0.0

    def _emit(self, event):
        self.out.write(self.frame + json.dumps(_finite(event), allow_nan=False, separators=(",", ":")) + "\n")
        self.out.flush()

    def __enter__(self):
        self._emit(
            {
                "event": "start",
                "workload": self.name,
                "protocol": PROTOCOL_VERSION,
                "run_id": os.environ.get("GPU_OVERHEAD_RUN_ID"),
                "proc_start_epoch_s": None,
                "epoch_s": _T0[0],
                "params": self.params,
            }
        )
        return self

    def phase(self, name):
        """Ends a start-up phase here (from the end of the last one, or from the import of this module)."""
        if name not in PHASES:
            raise ValueError("phase %r: one of %s" % (name, ", ".join(PHASES)))
        now = time.perf_counter()
        self._emit({"event": "phase", "name": name, "duration_s": max(0.0, now - self.last_phase), "end_epoch_s": _T0[0] + (now - _T0[1])})
        self.last_phase = now

    def _region(self, edge):
        self._emit({"event": "region", "edge": edge, "epoch_s": time.time()})

    def _stack(self):
        """The software stack in effect (for "Why the arms differ"), when the runner's _stack.py is beside this
        file (GPU_OVERHEAD_HELPER); a copied helper without it reports none. Never fails the benchmark."""
        try:
            here = os.path.dirname(os.path.abspath(__file__))
            if here not in sys.path:
                sys.path.append(here)
            import _stack

            torch = sys.modules.get("torch")
            dev = None
            if torch is not None and torch.cuda.is_available():
                dev = torch.device("cuda", torch.cuda.current_device())
            facts = _stack.collect(torch=torch, dev=dev, np=sys.modules.get("numpy"))
        except Exception:  # noqa: BLE001 - the stack is informative only
            return
        facts["event"] = "stack"
        self._emit(facts)

    def _open_region(self):
        if not self.in_region:
            self._stack()
            now = time.perf_counter()
            self._emit({"event": "phase", "name": "prepare", "duration_s": max(0.0, now - self.last_phase), "end_epoch_s": _T0[0] + (now - _T0[1])})
            self._region("start")
            self.in_region = True
            self.region_start = now

    def sample(self, metric, value, unit, better, derived_from=None):
        """One measured value; `better` ("lower" or "higher") is required: nothing guesses it from the name.
        `derived_from`: the metric this one is computed from (tokens/s from the step time): it is reported but
        not tested a second time."""
        if better not in ("lower", "higher"):
            raise ValueError("sample %r: better must be 'lower' or 'higher', got %r" % (metric, better))
        value = float(value)
        if not math.isfinite(value):
            raise ValueError("sample %r: value must be finite, got %r" % (metric, value))
        self._open_region()
        i = self.iteration.get(metric, 0) + 1
        self.iteration[metric] = i
        ev = {"event": "sample", "metric": metric, "value": value, "unit": unit, "iteration": i, "better": better}
        if derived_from:
            ev["derived_from"] = derived_from
        self._emit(ev)

    def measure(self, metric="time_ms"):
        """A block timed with perf_counter, reported in milliseconds (lower is better)."""
        bench = self

        class _Timer(object):
            def __enter__(self):
                bench._open_region()
                self.t = time.perf_counter()
                return self

            def __exit__(self, kind, value, tb):
                if kind is None:
                    bench.sample(metric, (time.perf_counter() - self.t) * 1e3, "ms", "lower")
                return False

        return _Timer()

    def __exit__(self, kind, value, tb):
        if self.in_region:
            self.measured_s = time.perf_counter() - self.region_start
            self._region("end")
        if kind is None:
            self._emit({"event": "summary", "workload": self.name, "measured_s": self.measured_s})
            return False
        self._emit({"event": "error", "type": "oom" if "out of memory" in str(value).lower() else "runtime", "message": "%s: %s" % (kind.__name__, _gist(str(value)))})
        return False
