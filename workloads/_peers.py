"""The other processes that share this workload's container, for the `peers` protocol event.

A process the image starts beside the workload (its entrypoint's sidecar, a second GPU job) competes for
what the workload measures; no stack fact would name it. In the container arm the runner sets
GPU_OVERHEAD_PEERS=pid-namespace and this module lists the container's PID namespace from /proc: every
process except this one, the children it started itself, and its ancestors (the launch chain: the
init, an entrypoint shell waiting on it) — with name, a clipped and masked command line, resident
memory, whether it holds an NVIDIA device open, and the CPU it used over the measured region. Natively nothing is listed (the host's processes are not
the image's). Bounded: at most MAX_SCAN /proc entries read, MAX_LISTED processes reported.
Standard library only; never raises into the workload (a failure becomes `unavailable`).
"""

import os
import re
import time

try:  # a package in the tests, plain modules beside the script when a workload runs
    from ._secrets import is_secret_name
except ImportError:
    from _secrets import is_secret_name

ENV = "GPU_OVERHEAD_PEERS"
SCOPE = "pid-namespace"
# The window of a `peers` event sent at the prestart hold (Peers.held), not at a measured region's end.
HELD_WINDOW = "prestart"
MAX_SCAN = 4096
MAX_LISTED = 16
MAX_CMDLINE = 160
MAX_NAME = 32
MASK = "***"
# Arguments that look like a credential are masked before anything leaves the process.
TOKEN_LIKE = re.compile(r"^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9_+=.~-]{24,}$")
URL_CREDENTIALS = re.compile(r"(://)[^/\s:@]+:[^/\s@]+@")


def enabled(environ=None):
    return (os.environ if environ is None else environ).get(ENV) == SCOPE


def _read(path, limit=4096):
    with open(path, "rb") as f:
        return f.read(limit)


def _stat(pid, proc):
    """(ppid, utime + stime, start time) in clock ticks from /proc/PID/stat; None when the process is gone."""
    try:
        raw = _read("%s/%d/stat" % (proc, pid)).decode("ascii", "replace")
    except OSError:
        return None
    # The name field may contain spaces and parentheses: the rest starts after the last ')'.
    rest = raw[raw.rfind(")") + 2 :].split()
    try:
        return int(rest[1]), int(rest[11]) + int(rest[12]), int(rest[19])
    except (IndexError, ValueError):
        return None


def mask_args(args):
    """Command-line arguments with credentials masked: NAME=value and --name value where the name says
    secret, token-shaped strings, passwords in URLs."""
    out = []
    hide_next = False
    for a in args:
        if hide_next:
            out.append(MASK)
            hide_next = False
            continue
        if "=" in a:
            name, _, value = a.partition("=")
            if is_secret_name(name) and value:
                out.append(name + "=" + MASK)
                continue
        elif a.startswith("-") and is_secret_name(a):
            out.append(a)
            hide_next = True
            continue
        a = URL_CREDENTIALS.sub(r"\1" + MASK + "@", a)
        out.append(MASK if TOKEN_LIKE.match(a) else a)
    return out


def _cmdline(pid, proc):
    try:
        raw = _read("%s/%d/cmdline" % (proc, pid), 4 * MAX_CMDLINE)
    except OSError:
        return None
    args = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    text = " ".join(mask_args(args))
    # Control characters never leave: the report is markdown, the summary JSON.
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text[:MAX_CMDLINE] + ("…" if len(text) > MAX_CMDLINE else "")


def _name(pid, proc):
    try:
        name = _read("%s/%d/comm" % (proc, pid), 64).decode("utf-8", "replace").strip()
    except OSError:
        return None
    return "".join(c if c.isprintable() else "?" for c in name)[:MAX_NAME]


def _rss_mib(pid, proc):
    try:
        for line in _read("%s/%d/status" % (proc, pid), 8192).decode("ascii", "replace").splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024.0, 1)
    except (OSError, ValueError, IndexError):
        pass
    return None


def _uptime_ticks(proc, hz):
    try:
        return int(float(_read("%s/uptime" % proc, 64).split()[0]) * hz)
    except (OSError, ValueError, IndexError):
        return None


MAX_FDS = 512


def _uses_gpu(pid, proc):
    """Whether the process holds an NVIDIA device node open (a CUDA context); None when unreadable."""
    try:
        fds = os.listdir("%s/%d/fd" % (proc, pid))[:MAX_FDS]
    except OSError:
        return None
    for fd in fds:
        try:
            if os.readlink("%s/%d/fd/%s" % (proc, pid, fd)).startswith("/dev/nvidia"):
                return True
        except OSError:
            continue
    return False


def _pids(proc):
    pids = []
    for entry in os.listdir(proc)[:MAX_SCAN]:
        if entry.isdigit():
            pids.append(int(entry))
    return pids


class Peers:
    """Snapshot at the region's start, report at its end: CPU used by each other process in between."""

    def __init__(self, proc="/proc", me=None):
        self.proc = proc
        self.me = os.getpid() if me is None else me
        self.t0 = None
        self.ticks0 = {}
        self.hz = os.sysconf("SC_CLK_TCK")
        # Now, in the clock of /proc/PID/stat's start time (ticks since boot): the script has begun.
        self.born = _uptime_ticks(proc, self.hz)
        self.t_born = time.monotonic()

    def _table(self):
        table = {}
        for pid in _pids(self.proc):
            st = _stat(pid, self.proc)
            if st is not None:
                table[pid] = st
        return table

    def _kin(self, table):
        """This process, its ancestors (the launch chain) and the children it started itself (after
        the script began). A process the entrypoint started before exec'ing the workload is a child
        of the workload's PID too, but older than the script: it stays listed."""
        kin = self._ancestors(table)
        for pid, (_, _, started) in table.items():
            if self.born is not None and started >= self.born and self._descends(pid, table):
                kin.add(pid)
        return kin

    def _descends(self, pid, table):
        for _ in range(64):
            pid = table.get(pid, (0, 0, 0))[0]
            if pid == self.me:
                return True
            if pid <= 0:
                return False
        return False

    def _ancestors(self, table):
        """This process and its launch chain (the init, an entrypoint shell waiting on it)."""
        kin = {self.me}
        pid = self.me
        for _ in range(64):  # bounded walk up the parent chain
            parent = table.get(pid, (0, 0, 0))[0]
            if parent <= 0 or parent in kin:
                break
            kin.add(parent)
            pid = parent
        return kin

    def held(self):
        """At the prestart hold (imports done, before the wait): every other process of the container now,
        this process's own children included (whatever runs now runs beside another process's measurement),
        with the CPU each has used since it started, over the time since the script began."""
        window = max(time.monotonic() - self.t_born, 1e-6)
        table = self._table()
        kin = self._ancestors(table)
        others = [
            {
                "pid": pid,
                "name": _name(pid, self.proc),
                "cmdline": _cmdline(pid, self.proc),
                "cpu_pct": round(100.0 * max(ticks, 0) / self.hz / window, 1),
                "rss_mib": _rss_mib(pid, self.proc),
                "uses_gpu": _uses_gpu(pid, self.proc),
            }
            for pid, (_, ticks, _) in table.items()
            if pid not in kin
        ]
        others.sort(key=lambda p: (-p["cpu_pct"], p["pid"]))
        return {
            "scope": SCOPE,
            "window": HELD_WINDOW,
            "window_s": round(window, 3),
            "total": len(others),
            "processes": others[:MAX_LISTED],
        }

    def start(self):
        self.t0 = time.monotonic()
        self.ticks0 = {pid: t for pid, (_, t, _) in self._table().items()}

    def report(self):
        """The `peers` event's facts for the window since start()."""
        if self.t0 is None:
            return {"scope": SCOPE, "unavailable": "the measured region was never started"}
        window = max(time.monotonic() - self.t0, 1e-6)
        hz = self.hz
        table = self._table()
        kin = self._kin(table)
        others = []
        for pid, (_, ticks, _) in table.items():
            if pid in kin:
                continue
            used = ticks - self.ticks0.get(pid, 0)
            others.append(
                {
                    "pid": pid,
                    "name": _name(pid, self.proc),
                    "cmdline": _cmdline(pid, self.proc),
                    "cpu_pct": round(100.0 * max(used, 0) / hz / window, 1),
                    "rss_mib": _rss_mib(pid, self.proc),
                    "uses_gpu": _uses_gpu(pid, self.proc),
                }
            )
        others.sort(key=lambda p: (-p["cpu_pct"], p["pid"]))
        return {
            "scope": SCOPE,
            "window_s": round(window, 3),
            "total": len(others),
            "processes": others[:MAX_LISTED],
        }


def safe(fn, *args):
    """Run a /proc reading step; a failure is reported, never raised into the workload."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 — /proc of a hostile image can hold anything
        return {"scope": SCOPE, "unavailable": "%s: %s" % (type(e).__name__, e)}
