#!/usr/bin/env python3
"""Storage paths an AI job uses: dataset reads, checkpoint writes, the container's writable layer.

Parts (all by default; --only picks some):
  scratch  write --scratch-mb with fsync into --scratch (in a container: the OverlayFS writable
           layer), then read it back cold: scratch_write_mb_s, scratch_read_mb_s
  ckpt     write --ckpt-mb with fsync into --ckpt (a bind mount, usually): ckpt_write_mb_s
  data     read the files of --data cold (up to --data-max-mb): data_read_mb_s
  small    create, stat and read --small-files files of 4 KiB under --scratch: small_files_ops_s
  copyup   open for writing and rewrite 1 byte (with its own value) of files that came with the
           image, one per size class: copyup_ms (fields size_mb, size_class, mode). In a
           container, on OverlayFS, that open copies the whole file up into the writable layer.
           Anywhere else (natively; a container marker on a plain file system) it never writes a
           file it did not create: it times the same 1-byte write into an own file of that size.
Cold reads: posix_fadvise(DONTNEED) after fsync and before each read drops the page cache of
those files (no root needed). Standard library only; CPU only (--device is accepted and ignored).
MB = 10^6 bytes; --*-mb sizes are MiB.
"""

import sys
import time

_T0 = (time.time(), time.perf_counter())
sys.dont_write_bytecode = True

import math  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import uuid  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import _protocol as P  # noqa: E402
import _stack  # noqa: E402
import _stats as S  # noqa: E402

MIB = 1 << 20
PARTS = ("scratch", "ckpt", "data", "small", "copyup")
DISCOVERY_ROOTS = ("/usr/lib", "/usr/lib64", "/usr/local/lib", "/opt")
DISCOVERY_MAX_ENTRIES = 400000
DISCOVERY_MAX_S = 15.0


def parse(argv):
    p = P.make_parser("io", "storage paths: dataset reads, checkpoint writes, writable layer, copy-up")
    p.add_argument("--data", default=None, help="dataset folder to read (e.g. a bind mount)")
    p.add_argument("--data-max-mb", type=int, default=2048, help="read at most this much of --data (MiB)")
    p.add_argument("--ckpt", default=None, help="checkpoint folder (or file path) to write into")
    p.add_argument("--ckpt-mb", type=int, default=2048, help="checkpoint size, MiB (default 2048)")
    p.add_argument("--scratch", default=None, help="writable-layer folder (default /var/tmp, else /tmp)")
    p.add_argument("--scratch-mb", type=int, default=None, help="scratch write size, MiB (default --ckpt-mb)")
    p.add_argument("--copyup-files", default=None, help="comma list of image files to probe (default: found)")
    p.add_argument("--copyup-sizes-mb", type=P.int_list, default=[1, 16, 128, 512], help="size classes, MiB")
    p.add_argument(
        "--copyup-mode",
        choices=["auto", "in-place", "own-file"],
        default="auto",
        help="auto: in-place inside a container, own-file natively",
    )
    p.add_argument("--small-files", type=int, default=2000)
    p.add_argument("--small-file-kb", type=int, default=4)
    p.add_argument("--chunk-mb", type=int, default=8, help="I/O block size, MiB")
    p.add_argument("--only", default=",".join(PARTS), help="comma list of parts: " + ",".join(PARTS))
    args = p.parse_args(argv)
    P.check_counts(args, 1, 5)
    args.parts = [x.strip() for x in args.only.split(",") if x.strip()]
    bad = [x for x in args.parts if x not in PARTS]
    if bad or not args.parts:
        raise P.WorkloadError("bad_args", "--only %r: unknown part(s) %s; allowed: %s" % (args.only, bad, ",".join(PARTS)))
    for name in ("data_max_mb", "ckpt_mb", "small_files", "small_file_kb", "chunk_mb"):
        if getattr(args, name) < 1:
            raise P.WorkloadError("bad_args", "--%s must be >= 1, got %d" % (name.replace("_", "-"), getattr(args, name)))
    if args.scratch_mb is None:
        args.scratch_mb = args.ckpt_mb
    if args.scratch_mb < 1:
        raise P.WorkloadError("bad_args", "--scratch-mb must be >= 1, got %d" % args.scratch_mb)
    if args.scratch is None:
        args.scratch = "/var/tmp" if _writable_dir("/var/tmp") else "/tmp"
    if not _writable_dir(args.scratch):
        raise P.WorkloadError("bad_args", "--scratch %r is not a writable folder" % args.scratch)
    if "ckpt" in args.parts and args.ckpt is None:
        args.parts.remove("ckpt")  # nothing to write into: reported as skipped
        args.ckpt_skipped = "no --ckpt given"
    else:
        args.ckpt_skipped = None
    if args.ckpt is not None:
        target_dir = args.ckpt if os.path.isdir(args.ckpt) else os.path.dirname(os.path.abspath(args.ckpt))
        if not _writable_dir(target_dir):
            raise P.WorkloadError("bad_args", "--ckpt %r: folder %r is not writable" % (args.ckpt, target_dir))
    if "data" in args.parts and args.data is None:
        args.parts.remove("data")
        args.data_skipped = "no --data given"
    else:
        args.data_skipped = None
    if args.data is not None and not os.path.isdir(args.data):
        raise P.WorkloadError("bad_args", "--data %r is not a folder" % args.data)
    args.copyup_list = [x for x in (args.copyup_files or "").split(",") if x.strip()]
    for f in args.copyup_list:
        if not os.path.isfile(f) and args.copyup_mode == "in-place":
            raise P.WorkloadError("bad_args", "--copyup-files: %r is not a file" % f)
    if args.copyup_mode == "in-place" and not P.in_container():
        raise P.WorkloadError(
            "bad_args",
            "--copyup-mode in-place writes into image files and is refused outside a container "
            "(no /.dockerenv or /run/.containerenv); use auto or own-file",
        )
    return args


def _writable_dir(path):
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


# ---- file system facts ----------------------------------------------------------------------


def mount_of(path):
    """(mount point, fs type) of the mount holding path, from /proc/self/mountinfo."""
    try:
        real = os.path.realpath(path)
        best = ("", None)
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields = left.split()
                if len(fields) < 5 or not right:
                    continue
                mp = fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")
                if (real == mp or real.startswith(mp.rstrip("/") + "/")) and len(mp) >= len(best[0]):
                    best = (mp, right.split()[0])
        return best if best[1] else (None, None)
    except OSError:
        return (None, None)


def fs_facts(path):
    if path is None:
        return None
    mp, fstype = mount_of(path)
    facts = {"path": path, "mount": mp, "fstype": fstype}
    try:
        st = os.statvfs(path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path)))
        facts["free_bytes"] = st.f_bavail * st.f_frsize
    except OSError:
        facts["free_bytes"] = None
    return facts


def drop_cache(path_or_fd):
    """Drop this file's clean pages from the page cache so the next read goes to the device."""
    if not hasattr(os, "posix_fadvise"):
        return False
    own = isinstance(path_or_fd, str)
    try:
        fd = os.open(path_or_fd, os.O_RDONLY) if own else path_or_fd
    except OSError:
        return False
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return True
    except OSError:
        return False
    finally:
        if own:
            os.close(fd)


def check_space(folder, need, what):
    try:
        st = os.statvfs(folder)
    except OSError:
        return
    free = st.f_bavail * st.f_frsize
    if free < need + 64 * MIB:
        raise P.WorkloadError(
            "runtime",
            "%s: %s has %.0f MiB free, needs %.0f MiB; lower --ckpt-mb/--scratch-mb"
            % (what, folder, free / MIB, (need + 64 * MIB) / MIB),
        )


# ---- timed operations -------------------------------------------------------------------------


def _write_all(fd, mv):
    while len(mv):
        n = os.write(fd, mv)
        mv = mv[n:]


def unique_name(folder, prefix):
    """A file name no other process, lane or check can hold: every container's workload has the same PID,
    so a PID-named file was shared by concurrent containers on one checkpoint folder (random, 128 bits)."""
    return os.path.join(folder, "%s-%s.bin" % (prefix, uuid.uuid4().hex))


def write_file(path, nbytes, block, fresh=True):
    """Seconds to create, write and fsync nbytes; the pages are dropped afterwards (untimed). `fresh`: the
    file must not exist yet (O_EXCL); a link at the path is never followed."""
    mv = memoryview(block)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_EXCL if fresh else os.O_TRUNC
    t0 = time.perf_counter()
    fd = os.open(path, flags, 0o600)
    try:
        left = nbytes
        while left > 0:
            n = min(left, len(mv))
            _write_all(fd, mv[:n])
            left -= n
        os.fsync(fd)
    finally:
        os.close(fd)
    dt = time.perf_counter() - t0
    drop_cache(path)
    return dt


def read_files(paths, buf, limit):
    """(seconds, bytes) to read the files cold, at most limit bytes in all."""
    for p in paths:
        drop_cache(p)
    mv = memoryview(buf)
    total = 0
    t0 = time.perf_counter()
    for p in paths:
        with open(p, "rb", buffering=0) as f:
            while total < limit:
                n = f.readinto(mv[: min(len(mv), limit - total)])
                if not n:
                    break
                total += n
        if total >= limit:
            break
    return time.perf_counter() - t0, total


def small_files(folder, n, size):
    payload = os.urandom(size)
    d = tempfile.mkdtemp(prefix="gpu-overhead-small-", dir=folder)
    names = [os.path.join(d, "f%05d" % i) for i in range(n)]
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        t0 = time.perf_counter()
        for name in names:
            fd = os.open(name, flags, 0o600)
            _write_all(fd, memoryview(payload))
            os.close(fd)
        t1 = time.perf_counter()
        for name in names:
            os.stat(name)
        t2 = time.perf_counter()
        for name in names:
            fd = os.open(name, os.O_RDONLY)
            os.read(fd, size)
            os.close(fd)
        t3 = time.perf_counter()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return {
        "ops_s": 3 * n / (t3 - t0),
        "create_ops_s": n / (t1 - t0),
        "stat_ops_s": n / (t2 - t1),
        "read_ops_s": n / (t3 - t2),
    }


# ---- copy-up probe ------------------------------------------------------------------------------


def discover(targets_mb, exclude, same_dev_only, search=None):
    """One existing file per size class (within x0.5..x2 of it), nearest in log size, from the
    image's library folders and the Python installation (or `search`). Deterministic for a given file
    tree. The walk stops once every class has a file within x0.8..x1.25 (a whole walk of this repo's
    CI-like host's library folders took 0.7-2.4 s)."""
    roots = []
    close_enough = [False] * len(targets_mb)
    for r in search or (DISCOVERY_ROOTS + (sys.prefix, sys.base_prefix)):
        r = os.path.realpath(r)
        if os.path.isdir(r) and r not in roots:
            roots.append(r)
    root_dev = os.stat("/").st_dev
    exclude = [os.path.realpath(e) for e in exclude if e]
    found, seen, entries = [], set(), 0
    deadline = time.perf_counter() + DISCOVERY_MAX_S
    stack = list(roots)
    while stack and entries < DISCOVERY_MAX_ENTRIES and time.perf_counter() < deadline and not all(close_enough):
        top = stack.pop()
        if any(top == e or top.startswith(e + "/") for e in exclude):
            continue
        try:
            it = os.scandir(top)
        except OSError:
            continue
        with it:
            for e in it:
                entries += 1
                try:
                    if e.is_symlink():
                        continue
                    if e.is_dir(follow_symlinks=False):
                        stack.append(e.path)
                    elif e.is_file(follow_symlinks=False):
                        st = e.stat(follow_symlinks=False)
                        if same_dev_only and st.st_dev != root_dev:
                            continue  # a bind mount, not the image
                        key = (st.st_dev, st.st_ino)
                        if key in seen or st.st_size < 4096:
                            continue
                        seen.add(key)
                        found.append((st.st_size, e.path))
                        for i, mb in enumerate(targets_mb):
                            if 0.8 * mb * MIB <= st.st_size <= 1.25 * mb * MIB:
                                close_enough[i] = True
                except OSError:
                    continue
    picks, used = [], set()
    for mb in targets_mb:
        target = mb * MIB
        best = None
        for size, path in found:
            if path in used or not (target / 2 <= size <= target * 2):
                continue
            key = (abs(math.log(size / target)), path)
            if best is None or key < best[0]:
                best = (key, size, path)
        if best:
            used.add(best[2])
            picks.append({"size_class": "%dMiB" % mb, "path": best[2], "size": best[1]})
    return picks, {"roots": roots, "entries": entries, "candidates": len(found), "every_class_close": all(close_enough)}


def copyup_in_place(path):
    """ms to open an image file for writing and rewrite one byte with its own value.

    The content never changes; on OverlayFS the open copies the whole file up first."""
    size = os.path.getsize(path)
    off = size // 2
    fd = os.open(path, os.O_RDONLY)
    try:
        byte = os.pread(fd, 1, off)
    finally:
        os.close(fd)
    t0 = time.perf_counter()
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, byte, off)
    finally:
        os.close(fd)
    return (time.perf_counter() - t0) * 1e3


def copyup_own_file(folder, size, block):
    """The native counterpart: the same 1-byte write into a file of that size that we created."""
    check_space(folder, size, "copy-up probe")
    fd, path = tempfile.mkstemp(prefix="gpu-overhead-copyup-", dir=folder)
    os.close(fd)
    try:
        write_file(path, size, block, fresh=False)
        return copyup_in_place(path)
    finally:
        os.unlink(path)


# ---- main ------------------------------------------------------------------------------------------


def main(proto, argv):
    args = parse(argv)
    mode = args.copyup_mode
    if mode == "auto":
        mode = "in-place" if P.in_container() else "own-file"
    params = {
        "device": args.device,
        "parts": args.parts,
        "data": args.data,
        "data_max_mb": args.data_max_mb,
        "ckpt": args.ckpt,
        "ckpt_mb": args.ckpt_mb,
        "scratch": args.scratch,
        "scratch_mb": args.scratch_mb,
        "copyup_files": args.copyup_list,
        "copyup_sizes_mb": args.copyup_sizes_mb,
        "copyup_mode": mode,
        "small_files": args.small_files,
        "small_file_kb": args.small_file_kb,
        "chunk_mb": args.chunk_mb,
        "warmup": args.warmup,
        "iters": args.iters,
        "seed": args.seed,
    }
    proto.start(params)
    # Standard library only: there is nothing to import or initialise; the phases are kept so
    # every workload reports the same start-up columns.
    t = time.perf_counter()
    proto.phase("imports", t, time.perf_counter())
    t = time.perf_counter()  # after a prestart hold, which the imports phase may include
    proto.phase("device_init", t, time.perf_counter())
    t = time.perf_counter()
    chunk = args.chunk_mb * MIB
    block = bytearray(os.urandom(MIB)) * args.chunk_mb  # incompressible, reused for every write
    buf = bytearray(chunk)
    proto.phase("first_kernel", t, time.perf_counter())

    proto.env(
        {
            "backend": "posix",
            "device_name": "cpu",
            "torch": None,
            "cuda": None,
            "fadvise": hasattr(os, "posix_fadvise"),
            "scratch_fs": fs_facts(args.scratch),
            "ckpt_fs": fs_facts(args.ckpt),
            "data_fs": fs_facts(args.data),
            "root_fs": fs_facts("/"),
            "copyup_mode": mode,
            "timer": "perf_counter",
        }
    )
    proto.stack(_stack.collect())

    scratch_bytes = args.scratch_mb * MIB
    ckpt_bytes = args.ckpt_mb * MIB
    if "scratch" in args.parts:
        check_space(args.scratch, scratch_bytes, "--scratch")
    ckpt_path = None
    ckpt_fresh = True
    if "ckpt" in args.parts:
        if os.path.isdir(args.ckpt):
            ckpt_path = unique_name(args.ckpt, "gpu-overhead-ckpt")
        else:
            ckpt_path, ckpt_fresh = args.ckpt, False
        check_space(os.path.dirname(os.path.abspath(ckpt_path)), ckpt_bytes, "--ckpt")
    data_files = []
    if "data" in args.parts:
        for dirpath, dirnames, filenames in os.walk(args.data):
            dirnames.sort()
            for fn in sorted(filenames):
                fp = os.path.join(dirpath, fn)
                if os.path.isfile(fp) and not os.path.islink(fp):
                    data_files.append(fp)
        if not data_files:
            raise P.WorkloadError("bad_args", "--data %r holds no files to read" % args.data)
    data_limit = args.data_max_mb * MIB
    scratch_file = unique_name(args.scratch, "gpu-overhead-scratch")

    results = {k: [] for k in ("scratch_write_mb_s", "scratch_read_mb_s", "ckpt_write_mb_s", "data_read_mb_s", "small_files_ops_s")}
    data_bytes = None
    t_meas = time.perf_counter()
    measured_s = 0.0
    try:
        for it in range(args.warmup + args.iters):
            warm = it < args.warmup
            i = it - args.warmup + 1
            if it == args.warmup:
                proto.region("start")
                t_meas = time.perf_counter()
            vals = []
            if "scratch" in args.parts:
                dt = write_file(scratch_file, scratch_bytes, block)
                vals.append(("scratch_write_mb_s", scratch_bytes / dt / 1e6, {"bytes": scratch_bytes}))
                dt, nb = read_files([scratch_file], buf, scratch_bytes)
                vals.append(("scratch_read_mb_s", nb / dt / 1e6, {"bytes": nb}))
                os.unlink(scratch_file)
            if ckpt_path:
                dt = write_file(ckpt_path, ckpt_bytes, block, fresh=ckpt_fresh)
                vals.append(("ckpt_write_mb_s", ckpt_bytes / dt / 1e6, {"bytes": ckpt_bytes}))
                os.unlink(ckpt_path)
            if data_files:
                dt, nb = read_files(data_files, buf, data_limit)
                data_bytes = nb
                vals.append(("data_read_mb_s", nb / dt / 1e6 if dt > 0 else None, {"bytes": nb}))
            if "small" in args.parts:
                r = small_files(args.scratch, args.small_files, args.small_file_kb * 1024)
                extra = {k: v for k, v in r.items() if k != "ops_s"}
                extra.update({"files": args.small_files, "file_kb": args.small_file_kb})
                vals.append(("small_files_ops_s", r["ops_s"], extra))
            if warm:
                continue
            for metric, value, fields in vals:
                if value is None:
                    continue
                unit = "ops/s" if metric == "small_files_ops_s" else "MB/s"
                proto.sample(metric, value, unit, i, "higher", **fields)
                results[metric].append(value)
        measured_s = time.perf_counter() - t_meas
        proto.region("end")
    finally:
        for p in (scratch_file, ckpt_path):
            if p and os.path.exists(p):
                try:
                    os.unlink(p)
                except OSError:
                    pass

    copyup = None
    if "copyup" in args.parts:
        copyup = run_copyup(proto, args, mode, block)

    facts = {"parts": args.parts, "measured_s": measured_s, "energy_j": None, "energy_source": None, "iters": args.iters}
    for metric, vals in results.items():
        if vals:
            d = S.describe(vals)
            facts[metric] = {"median": d["median"], "mean": d["mean"], "cv_pct": d["cv_pct"], "n": d["n"]}
    facts["skipped"] = {k: v for k, v in (("ckpt", args.ckpt_skipped), ("data", args.data_skipped)) if v}
    if data_files:
        facts["data_files"] = len(data_files)
        facts["data_bytes_per_iter"] = data_bytes
    facts["copyup"] = copyup
    proto.summary(facts)


def on_overlay(fstype):
    """OverlayFS (kernel or fuse-overlayfs): the only place where opening for write copies up."""
    return bool(fstype) and "overlay" in fstype


def run_copyup(proto, args, mode, block):
    """In-place only in a container AND on an OverlayFS file: a container marker alone is not
    enough (a sandbox with /.dockerenv may have an ordinary root file system, whose files
    must never be written). Everything else probes an own file of the same size."""
    in_ctr = P.in_container()
    t = time.perf_counter()
    if not args.copyup_list and not (mode == "in-place" and in_ctr):
        # Own files only (natively, or --copyup-mode own-file): nothing in the image to find, so the probe
        # writes into files of the class sizes themselves.
        picks = [{"size_class": "%dMiB" % mb, "path": None, "size": mb * MIB} for mb in args.copyup_sizes_mb]
        info = {"source": "size classes"}
    elif args.copyup_list:
        picks = []
        for f in args.copyup_list:
            try:
                size = os.path.getsize(f)
            except OSError:
                picks.append({"path": f, "size": None, "size_class": None, "skipped": "not found"})
                continue
            picks.append({"path": f, "size": size, "size_class": "%dMiB" % max(1, round(size / MIB))})
        info = {"source": "--copyup-files"}
    else:
        exclude = [_HERE, args.scratch, args.ckpt, args.data]
        picks, info = discover(args.copyup_sizes_mb, exclude, same_dev_only=in_ctr)
        info["source"] = "discovered"
    info["discovery_s"] = time.perf_counter() - t
    info["requested_mode"] = mode
    info["in_container"] = in_ctr
    info["files"] = []
    scratch_fs = mount_of(args.scratch)[1]
    for pick in picks:
        row = dict(pick)
        if pick.get("size") is None:
            info["files"].append(row)
            continue
        fstype = mount_of(pick["path"])[1] if pick["path"] else None
        row["fstype"] = fstype
        in_place = mode == "in-place" and in_ctr and on_overlay(fstype)
        if mode == "in-place" and not in_place:
            row["note"] = "not an OverlayFS file in a container: probed an own file instead"
        try:
            if in_place:
                ms = copyup_in_place(pick["path"])
            else:
                ms = copyup_own_file(args.scratch, pick["size"], block)
        except P.WorkloadError as e:
            row["skipped"] = e.message
            info["files"].append(row)
            continue
        except OSError as e:  # read-only root, permission: report, do not fail the whole run
            row["skipped"] = "%s: %s" % (type(e).__name__, e)
            info["files"].append(row)
            continue
        used = "in-place" if in_place else "own-file"
        row["ms"] = ms
        row["mode"] = used
        row["written"] = pick["path"] if in_place else "own file of that size in --scratch"
        info["files"].append(row)
        proto.sample(
            "copyup_ms",
            ms,
            "ms",
            1,
            "lower",
            size_mb=round(pick["size"] / MIB, 3),
            size_class=pick["size_class"],
            mode=used,
            fstype=fstype if in_place else scratch_fs,
        )
    if not picks:
        info["skipped"] = "no files of the size classes %s MiB found" % args.copyup_sizes_mb
    return info


if __name__ == "__main__":
    P.run(P.Protocol("io", *_T0), main)
