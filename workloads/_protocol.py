"""JSON-lines protocol shared by the workloads (see src/types.ts, "Workload JSON-lines protocol").

Protocol version 2. Events travel on a channel of their own: the file named by GPU_OVERHEAD_EVENTS (the
runner creates it in a per-run folder, bind-mounted into the container), one JSON object per line. What the
image's entrypoint, libraries or the workload print on stdout/stderr is never parsed: the runner keeps it as the
run's log. Without GPU_OVERHEAD_EVENTS (a workload started by hand) the events go to stdout, as in version 1.
Every line is one JSON object:
  start   {workload, protocol, run_id, proc_start_epoch_s, epoch_s, params}   always the first line;
          run_id echoes GPU_OVERHEAD_RUN_ID (the runner refuses events of another run)
  phase   {name, duration_s, end_epoch_s}   name in interpreter | imports | held | device_init | first_kernel
          | prepare (held: only with GPU_OVERHEAD_HOLD=stdin, the wait for "go" on stdin after the imports;
          prepare: emitted by the first region start, first kernel -> measuring)
  env     {python, torch, cuda, device_name, ...}                    free-form facts
  stack   {python, torch, numpy, cpu, libraries, env}                the software stack in effect (_stack.py)
  memory  {nvml_process_used_bytes, torch_reserved_bytes, ...}        GPU memory after warm-up (_gpu_memory.py)
  region  {edge: start | end, epoch_s}                               the measured region (telemetry window)
  peers   {scope, window_s, total, processes | unavailable}           container arm only (GPU_OVERHEAD_PEERS): the
          container's other processes over the region just ended (_peers.py); with window "prestart", sent
          at the hold (before the wait for "go"): every other process of the container then
  turn    {edge: wait | done, iteration}  only with GPU_OVERHEAD_TURNS=stdin (Protocol.take_turn): the process
          gives the GPU back and waits for "turn" on stdin (wait), or has finished measuring (done)
  sample  {metric, value, unit, iteration, ...}                      one per measured iteration (1-based)
  summary {...}                                                      last line on success
  error   {type, message}     type in oom | no_gpu | missing_backend | bad_args | runtime

On stdout (no channel file) nothing else may reach stdout: at start-up the real stdout descriptor is kept
for the events and fd 1 is pointed at stderr, so stray prints and C-library chatter land on stderr.

Standard library only (Python >= 3.9): the workloads run unchanged natively and inside images.
"""

import argparse
import json
import math
import os
import platform
import sys
import time

try:  # a package in the tests, plain modules beside the script when a workload runs
    from . import _peers
except ImportError:
    import _peers

# Which way is better for a sample; declared by every workload (never guessed from the name).
BETTER = ("lower", "higher")

sys.dont_write_bytecode = True

# Exit codes: 2 = the input or the environment is wrong, 1 = the workload failed.
ERROR_EXIT = {"bad_args": 2, "missing_backend": 2, "no_gpu": 2, "oom": 1, "runtime": 1}
# The last start-up phase, emitted at the first measured region: first kernel -> measuring.
PREPARE_PHASE = "prepare"
# The start-up phases a workload reports, in the order they happen (the runner adds launch; `held` is not one).
STARTUP_PHASES = ("interpreter", "imports", "device_init", "first_kernel", PREPARE_PHASE)
# Prestart (see Protocol.hold): the variable that asks for the hold, and the exit code of a process the
# runner released without "go" (it was started for a run that the check no longer needs).
HOLD_ENV = "GPU_OVERHEAD_HOLD"
HELD_EXIT = 3
# Turns (see Protocol.take_turn): the variable that asks for them; the runner's line that gives the turn.
TURNS_ENV = "GPU_OVERHEAD_TURNS"
TURN_LINE = "turn"
# The channel (docs/protocol.md): the events file, and the run's id that the start event echoes.
PROTOCOL_VERSION = 2
EVENTS_ENV = "GPU_OVERHEAD_EVENTS"
# GPU_OVERHEAD_EVENTS=stdout: the runner shares no folder with this process (a launcher without one, e.g. an exec
# stream): events go to the real stdout, each line framed so the runner tells them from a banner (docs/protocol.md).
EVENTS_ON_STDOUT = "stdout"
EVENT_FRAME = "gpu-overhead:%d " % PROTOCOL_VERSION
RUN_ID_ENV = "GPU_OVERHEAD_RUN_ID"


class WorkloadError(Exception):
    """An anticipated failure, reported as an error event of the given type."""

    def __init__(self, type_, message):
        super().__init__(message)
        self.type = type_ if type_ in ERROR_EXIT else "runtime"
        self.message = message


# ---- clocks ---------------------------------------------------------------------------------


def proc_start_epoch():
    """Epoch seconds at which the OS created this process, and how it was found.

    /proc/self/stat field 22 is the start time in clock ticks since boot. /proc/stat's btime
    is whole seconds, which would blur a 30 ms interpreter phase by up to 1 s, so the boot
    instant is derived from CLOCK_BOOTTIME (the clock starttime counts in since Linux 5.3) and
    btime is only the fallback. Returns (None, reason) when unavailable.
    """
    try:
        with open("/proc/self/stat", "rb") as f:
            raw = f.read().decode("ascii", "replace")
        # comm (field 2) may hold spaces and parentheses: split after the last ')'.
        rest = raw[raw.rindex(")") + 2 :].split()
        ticks = int(rest[22 - 3])
        hz = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None, "unavailable"
    since_boot = ticks / float(hz)
    now = time.time()
    try:
        boot_epoch = now - time.clock_gettime(time.CLOCK_BOOTTIME)
        source = "boottime"
    except (AttributeError, OSError):
        boot_epoch = None
        try:
            with open("/proc/stat") as f:
                for line in f:
                    if line.startswith("btime "):
                        boot_epoch = float(line.split()[1])
                        break
        except OSError:
            pass
        source = "btime"
    if boot_epoch is None:
        return None, "unavailable"
    start = boot_epoch + since_boot
    # Guard against kernels/sandboxes whose counters disagree: a process cannot start in the
    # future, and start-up longer than 10 minutes means the numbers are not comparable.
    if start > now + 0.05 or now - start > 600:
        return None, source + "-implausible"
    return start, source


# ---- output ---------------------------------------------------------------------------------


def _finite(obj):
    """JSON has no NaN/Infinity: turn them into null, and numpy scalars into Python numbers."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    if obj is None or isinstance(obj, (str, bool, int)):
        return obj
    if hasattr(obj, "item"):  # numpy / torch scalars
        try:
            return _finite(obj.item())
        except (TypeError, ValueError):
            pass
    return str(obj)


def _open_channel():
    """The events file the runner named (append, never created here, never through a link), else stdout."""
    path = os.environ.get(EVENTS_ENV)
    if not path or path == EVENTS_ON_STDOUT:
        return _claim_stdout()
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        sys.stderr.write("gpu-overhead: cannot open the events channel %s: %s\n" % (path, e))
        os._exit(2)
    return os.fdopen(fd, "w", encoding="utf-8", buffering=1)


def _claim_stdout():
    """Keep the real stdout for events; send everything else written to fd 1 to stderr."""
    try:
        sys.stdout.flush()
    except Exception:
        pass
    try:
        fd = os.dup(1)
        os.dup2(2, 1)
        out = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
    except OSError:
        out = sys.__stdout__
    sys.stdout = sys.stderr
    return out


class Protocol:
    """Emits the events of one workload process."""

    def __init__(self, workload, t0_epoch, t0_perf):
        self.workload = workload
        self.t0_epoch = t0_epoch
        self.t0_perf = t0_perf
        self.out = _open_channel()
        self.frame = EVENT_FRAME if os.environ.get(EVENTS_ENV) == EVENTS_ON_STDOUT else ""
        self.started = False
        self.proc_start, self.proc_start_source = proc_start_epoch()
        self.last_phase_end = None  # perf_counter at the end of the last start-up phase
        self.measuring = False
        # Turns: the other arm's process of this block shares the GPU, and the runner gives it to one at a time.
        self.turns = os.environ.get(TURNS_ENV) == "stdin"
        self.turns_taken = 0
        # Container arm: the other processes of the container, over each measured region (_peers.py).
        self.peers = _peers.safe(_peers.Peers) if _peers.enabled() else None

    # perf_counter -> epoch on one clock, anchored at the first line of the script
    def epoch(self, perf):
        return self.t0_epoch + (perf - self.t0_perf)

    def emit(self, obj):
        line = json.dumps(_finite(obj), allow_nan=False, separators=(",", ":"))
        self.out.write(self.frame + line + "\n")
        self.out.flush()

    def start(self, params):
        if self.started:
            return
        self.started = True
        self.emit(
            {
                "event": "start",
                "workload": self.workload,
                "protocol": PROTOCOL_VERSION,
                "run_id": os.environ.get(RUN_ID_ENV),
                "proc_start_epoch_s": self.proc_start,
                "epoch_s": self.t0_epoch,
                "params": params,
            }
        )
        if self.proc_start is not None:
            self.emit(
                {
                    "event": "phase",
                    "name": "interpreter",
                    "duration_s": max(0.0, self.t0_epoch - self.proc_start),
                    "end_epoch_s": self.t0_epoch,
                }
            )

    def phase(self, name, t_start_perf, t_end_perf):
        self.emit(
            {
                "event": "phase",
                "name": name,
                "duration_s": max(0.0, t_end_perf - t_start_perf),
                "end_epoch_s": self.epoch(t_end_perf),
            }
        )
        self.last_phase_end = t_end_perf
        if name == "imports":
            self.hold()

    def hold(self):
        """Prestart: with GPU_OVERHEAD_HOLD=stdin the runner started this process early, while the previous
        one measures. Interpreter start and imports (CPU only) are done; wait here, before any CUDA call,
        until the runner writes "go" on stdin (the GPU is free). End of input = not needed: leave quietly.
        Reported as the phase `held`, which the runner takes out of the start-up totals."""
        if os.environ.get(HOLD_ENV) != "stdin":
            return
        if isinstance(self.peers, _peers.Peers):
            # Container arm: what else runs in the container. The runner lets a held container import while
            # another process measures and freezes it here; anything else running means it must freeze the
            # next held containers from their start instead.
            ev = {"event": "peers"}
            ev.update(_peers.safe(self.peers.held))
            ev["event"] = "peers"
            ev["window"] = _peers.HELD_WINDOW
            self.emit(ev)
        t = time.perf_counter()
        line = sys.stdin.readline()
        if line.strip() != "go":
            os._exit(HELD_EXIT)
        self.phase("held", t, time.perf_counter())

    def take_turn(self, iteration):
        """Turns: before each measured iteration, give the GPU back (a `turn` event, edge wait) and wait for
        the runner's "turn" on stdin. The runner gives it to this process and the other arm's process of the
        block alternately, so iteration k of both arms runs within a second, in the same host state; what
        the process does between two of its turns (its next iteration, a next configuration's warm-up) runs
        while it holds the GPU. Without GPU_OVERHEAD_TURNS this does nothing. End of input: the runner ended
        the block (the other process failed): stop as an error."""
        if not self.turns:
            return
        self.emit({"event": "turn", "edge": "wait", "iteration": iteration})
        line = sys.stdin.readline()
        if line.strip() != TURN_LINE:
            raise WorkloadError("runtime", "the runner ended the turns before iteration %d" % iteration)
        self.turns_taken += 1

    def env(self, facts):
        ev = {"event": "env"}
        ev.update(common_env())
        ev["proc_start_source"] = self.proc_start_source
        ev.update(facts)
        ev["event"] = "env"
        self.emit(ev)

    def stack(self, facts):
        ev = dict(facts)
        ev["event"] = "stack"
        self.emit(ev)

    def memory(self, facts):
        ev = dict(facts)
        ev["event"] = "memory"
        self.emit(ev)

    def region(self, edge):
        """Marks the start or the end of the measured region: the runner attributes telemetry to it. The
        first start closes start-up with the phase `prepare` (first kernel → measuring: warm-up, graph
        capture, checks, recorded facts), so the phases add up to the time before the first measurement.
        In the container arm, the region's end also reports the container's other processes (`peers`)."""
        if edge == "start" and not self.measuring:
            self.measuring = True
            if self.last_phase_end is not None:
                self.phase(PREPARE_PHASE, self.last_phase_end, time.perf_counter())
        self.emit({"event": "region", "edge": edge, "epoch_s": time.time()})
        if isinstance(self.peers, _peers.Peers):
            if edge == "start":
                failed = _peers.safe(self.peers.start)
                if failed:
                    self.peers = failed
            else:
                ev = {"event": "peers"}
                ev.update(_peers.safe(self.peers.report))
                ev["event"] = "peers"
                self.emit(ev)
        elif self.peers is not None and edge == "end":
            ev = dict(self.peers)
            ev["event"] = "peers"
            self.emit(ev)

    def sample(self, metric, value, unit, iteration, better, derived_from=None, **fields):
        """One measured value. `better` ("lower" | "higher") is required: the analysis never guesses a
        metric's direction from its name. `derived_from` names the primary metric this one is a function of
        (TFLOP/s from kernel time, tokens/s from E2E): it is reported but not tested a second time."""
        if better not in BETTER:
            raise ValueError("sample %r: better must be one of %s, got %r" % (metric, "/".join(BETTER), better))
        ev = {"event": "sample", "metric": metric, "value": value, "unit": unit, "iteration": iteration, "better": better}
        if derived_from is not None:
            ev["derived_from"] = derived_from
        ev.update(fields)
        self.emit(ev)

    def summary(self, facts):
        ev = {"event": "summary", "workload": self.workload}
        ev.update(facts)
        ev["event"] = "summary"
        self.emit(ev)
        if self.turns:
            # Measuring is over: the runner gives the GPU to the other process without waiting for this exit.
            self.emit({"event": "turn", "edge": "done", "iteration": self.turns_taken})

    def error(self, type_, message):
        self.emit({"event": "error", "type": type_, "message": message})


def common_env():
    return {
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "in_container": in_container(),
        "pid": os.getpid(),
    }


def in_container():
    """True inside Docker/Podman (their marker files) or when the runtime says so."""
    if os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv"):
        return True
    return bool(os.environ.get("container"))


# ---- arguments -------------------------------------------------------------------------------


class ArgParser(argparse.ArgumentParser):
    """argparse that reports problems as a bad_args error event instead of exiting on stderr."""

    def error(self, message):
        raise WorkloadError("bad_args", "%s: %s" % (self.prog, message))


def make_parser(prog, description):
    p = ArgParser(prog=prog, description=description)
    p.add_argument("--device", choices=["gpu", "cpu"], default="gpu", help="default gpu")
    p.add_argument("--warmup", type=int, default=None, help="warm-up iterations (not reported)")
    p.add_argument("--iters", type=int, default=None, help="measured iterations")
    p.add_argument("--seed", type=int, default=0)
    return p


def check_counts(args, warmup_default, iters_default):
    if args.warmup is None:
        args.warmup = warmup_default
    if args.iters is None:
        args.iters = iters_default
    if args.warmup < 0:
        raise WorkloadError("bad_args", "--warmup must be >= 0, got %d" % args.warmup)
    if args.iters < 1:
        raise WorkloadError("bad_args", "--iters must be >= 1, got %d" % args.iters)


def int_list(text):
    """argparse type for '8,16' lists of positive integers."""
    try:
        vals = [int(x) for x in text.split(",") if x.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError("expected comma-separated integers, got %r" % text)
    if not vals or any(v < 1 for v in vals):
        raise argparse.ArgumentTypeError("expected positive integers, got %r" % text)
    return vals


def short(exc):
    """The last non-empty line of an exception's text (NumPy's ImportError runs to 20 lines)."""
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    return lines[-1] if lines else type(exc).__name__


def is_oom(exc):
    """Out of memory, host or device (torch's OutOfMemoryError, or its message)."""
    name = type(exc).__name__
    return name in ("OutOfMemoryError", "MemoryError") or "out of memory" in str(exc).lower()


# ---- entry point ------------------------------------------------------------------------------


def run(proto, main, argv=None):
    """Run main(proto, argv); turn every failure into one error event and the right exit code."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        main(proto, argv)
        code = 0
    except WorkloadError as e:
        proto.start({"argv": argv})
        proto.error(e.type, e.message)
        code = ERROR_EXIT[e.type]
    except KeyboardInterrupt:
        proto.start({"argv": argv})
        proto.error("runtime", "interrupted")
        code = 130
    except SystemExit as e:  # argparse --help
        code = e.code if isinstance(e.code, int) else 0
    except BaseException as e:  # noqa: BLE001 - every failure must become an event
        import traceback

        traceback.print_exc(file=sys.stderr)
        proto.start({"argv": argv})
        kind = "oom" if is_oom(e) else "runtime"
        proto.error(kind, "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else ""))
        code = 1
    try:
        proto.out.flush()
        sys.stderr.flush()
    except Exception:
        pass
    # os._exit skips interpreter teardown (CUDA/NVML destructors), which can hang or print after
    # the summary; everything we owe is flushed already.
    os._exit(code)
