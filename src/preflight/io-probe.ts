/**
 * The in-container half of io-check: a Python script (python3 is in every image the workloads run in)
 * that reads /proc/self/mountinfo, times a write+fsync and a read per path and on the writable layer, and
 * times a copy-up. It prints one JSON object (ProbeOutput).
 */

/** Runs inside the image (python3 is needed by the workloads anyway); prints one JSON object. */
export const PROBE_SCRIPT = String.raw`
import json, os, sys, tempfile, time
args = json.loads(sys.argv[1])
size = int(args["probe_mib"]) * 1048576
CHUNK = 1048576
out = {"mountinfo": open("/proc/self/mountinfo").read(), "uid": os.getuid(), "paths": [], "layer": None, "copy_up": None}
root_dev = os.stat("/").st_dev

def probe(d):
    r = {"dir": d, "write_mb_s": None, "read_mb_s": None, "write_ms": None, "read_ms": None, "bytes": 0, "error": None}
    name = None
    try:
        fd, name = tempfile.mkstemp(prefix=".gpu-overhead-probe-", dir=d)
        buf = os.urandom(CHUNK)
        t0 = time.perf_counter()
        n = 0
        while n < size:
            n += os.write(fd, buf)
        os.fsync(fd)
        t1 = time.perf_counter()
        os.close(fd)
        fd = os.open(name, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except (AttributeError, OSError):
            pass
        t2 = time.perf_counter()
        m = 0
        while True:
            b = os.read(fd, CHUNK)
            if not b:
                break
            m += len(b)
        t3 = time.perf_counter()
        os.close(fd)
        r.update(bytes=n, write_ms=(t1 - t0) * 1e3, read_ms=(t3 - t2) * 1e3,
                 write_mb_s=n / 1e6 / max(t1 - t0, 1e-9), read_mb_s=m / 1e6 / max(t3 - t2, 1e-9))
    except OSError as e:
        r["error"] = "%s: %s" % (type(e).__name__, e.strerror or e)
    finally:
        if name:
            try:
                os.unlink(name)
            except OSError:
                pass
    return r

def nearest_existing(p):
    while p != "/" and not os.path.exists(p):
        p = os.path.dirname(p)
    return p

for item in args["paths"]:
    p = item["path"]
    real = os.path.realpath(p)
    info = {"path": p, "resolved": real, "exists": os.path.exists(real), "is_dir": os.path.isdir(real), "writable": None, "probe": None}
    base = real if info["is_dir"] else nearest_existing(real)
    info["writable"] = os.access(base, os.W_OK)
    if item.get("probe") and info["writable"] and os.path.isdir(base):
        info["probe"] = probe(base)
    out["paths"].append(info)

for d in ["/tmp", "/var/tmp", "/root", os.environ.get("HOME") or "/", "/"]:
    try:
        if os.path.isdir(d) and os.stat(d).st_dev == root_dev and os.access(d, os.W_OK):
            out["layer"] = probe(d)
            break
    except OSError:
        pass

def copy_up():
    maps = set()
    try:
        for line in open("/proc/self/maps"):
            parts = line.split()
            if len(parts) >= 6:
                maps.add(parts[5])
    except OSError:
        pass
    # The largest image file of 4 to 512 MiB among the first files found (bounded walk).
    best = None
    seen = 0
    for top in ["/usr", "/opt"]:
        for dirpath, dirnames, filenames in os.walk(top):
            for f in filenames:
                seen += 1
                if seen > 50000:
                    return best
                p = os.path.join(dirpath, f)
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                if (st.st_mode & 0o170000) != 0o100000 or st.st_dev != root_dev or p in maps:
                    continue
                if 4 * 1048576 <= st.st_size <= 512 * 1048576 and (best is None or st.st_size > best[1]) and os.access(p, os.W_OK):
                    best = (p, st.st_size)
    return best

found = copy_up()
if found and out["layer"] is not None:
    p, sz = found
    res = {"file": p, "size_bytes": sz, "ms": None, "baseline_ms": None, "error": None}
    try:
        fd, name = tempfile.mkstemp(prefix=".gpu-overhead-probe-", dir=out["layer"]["dir"])
        t0 = time.perf_counter()
        os.write(fd, b"x")
        os.fsync(fd)
        os.close(fd)
        res["baseline_ms"] = (time.perf_counter() - t0) * 1e3
        os.unlink(name)
        with open(p, "rb") as fh:
            first = fh.read(1)
        t0 = time.perf_counter()
        fd = os.open(p, os.O_WRONLY)
        os.pwrite(fd, first, 0)
        os.fsync(fd)
        os.close(fd)
        res["ms"] = (time.perf_counter() - t0) * 1e3
    except OSError as e:
        res["error"] = "%s: %s" % (type(e).__name__, e.strerror or e)
    out["copy_up"] = res
print(json.dumps(out))
`

export interface ProbeResult {
  dir: string
  write_mb_s: number | null
  read_mb_s: number | null
  write_ms: number | null
  read_ms: number | null
  bytes: number
  error: string | null
}

export interface ProbeOutput {
  mountinfo: string
  uid: number
  paths: {
    path: string
    resolved: string
    exists: boolean
    is_dir: boolean
    writable: boolean | null
    probe: ProbeResult | null
  }[]
  layer: ProbeResult | null
  copy_up: {
    file: string
    size_bytes: number
    ms: number | null
    baseline_ms: number | null
    error: string | null
  } | null
}
