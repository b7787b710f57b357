"""io at tiny sizes: bind-mount-like folders, the writable layer, small files, the copy-up probe."""

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

from workloads.tests._util import WorkloadTestCase, run_workload


WORKLOADS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_io():
    """workloads/io.py as a module (its name shadows the standard library's io, hence the spec)."""
    if WORKLOADS not in sys.path:
        sys.path.insert(0, WORKLOADS)  # io.py imports its siblings (_protocol, _stats) by name
    spec = importlib.util.spec_from_file_location("wl_io", os.path.join(WORKLOADS, "io.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def in_container():
    """The container markers io.py itself goes by."""
    return bool(os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv") or os.environ.get("container"))


def on_overlayfs(path):
    """Whether path lies on OverlayFS, as stat(1) reads it (not io.py's own mountinfo walk). /tmp is
    OverlayFS in most containers and an ordinary file system on most hosts: no test may assume either."""
    out = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True, timeout=30, check=True)
    return "overlay" in out.stdout


def copyup_mode_for(path):
    """The copy-up mode auto/in-place must pick for an existing file: in-place only in a container on OverlayFS."""
    return "in-place" if in_container() and on_overlayfs(path) else "own-file"


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class IoTest(WorkloadTestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="io-test-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.data = os.path.join(self.tmp, "data")
        self.ckpt = os.path.join(self.tmp, "ckpt")
        self.scratch = os.path.join(self.tmp, "scratch")
        for d in (self.data, self.ckpt, self.scratch, os.path.join(self.data, "sub")):
            os.makedirs(d)
        for name, size in (("a.bin", 300000), ("sub/b.bin", 70000)):
            with open(os.path.join(self.data, name), "wb") as f:
                f.write(os.urandom(size))
        # stands in for a file that came with an image: natively it must never be written
        self.image_file = os.path.join(self.tmp, "image-file.so")
        with open(self.image_file, "wb") as f:
            f.write(os.urandom(1536 * 1024))
        os.utime(self.image_file, (1000000000, 1000000000))

    def base_args(self):
        return ["--scratch", self.scratch, "--ckpt-mb", "2", "--small-files", "50", "--warmup", "1"]

    def test_all_parts(self):
        before = digest(self.image_file)
        run = run_workload(
            "io.py",
            self.base_args() + ["--iters", "3", "--data", self.data, "--ckpt", self.ckpt, "--copyup-files", self.image_file],
        )
        self.assertProtocol(run, "io")
        for metric in ("scratch_write_mb_s", "scratch_read_mb_s", "ckpt_write_mb_s", "data_read_mb_s"):
            samples = run.samples(metric)
            self.assertEqual([s["iteration"] for s in samples], [1, 2, 3], metric)
            self.assertTrue(all(s["unit"] == "MB/s" and s["value"] > 0 for s in samples), metric)
        self.assertEqual(run.samples("data_read_mb_s")[0]["bytes"], 370000)
        self.assertEqual(run.samples("ckpt_write_mb_s")[0]["bytes"], 2 << 20)
        small = run.samples("small_files_ops_s")
        self.assertEqual(len(small), 3)
        self.assertEqual(small[0]["unit"], "ops/s")
        self.assertEqual(small[0]["files"], 50)
        cu = run.samples("copyup_ms")
        self.assertEqual(len(cu), 1)
        self.assertEqual(cu[0]["size_mb"], 1.5)
        self.assertEqual(cu[0]["size_class"], "2MiB")
        # natively, or in a container whose temp folder is not OverlayFS, the probe must use an own copy;
        # in place, the file's one rewritten byte keeps its content (its mtime moves)
        mode = copyup_mode_for(self.image_file)
        self.assertEqual(cu[0]["mode"], mode)
        self.assertEqual(digest(self.image_file), before)
        if mode == "own-file":
            self.assertEqual(os.stat(self.image_file).st_mtime, 1000000000)
        summ = run.summary
        self.assertEqual(summ["data_files"], 2)
        self.assertEqual(summ["scratch_write_mb_s"]["n"], 3)
        self.assertEqual(summ["skipped"], {})
        self.assertEqual(os.listdir(self.scratch), [])  # cleaned up
        self.assertEqual(os.listdir(self.ckpt), [])
        env = run.env
        self.assertEqual(env["scratch_fs"]["path"], self.scratch)
        self.assertIsNotNone(env["scratch_fs"]["fstype"])

    def test_without_data_and_ckpt_they_are_skipped(self):
        run = run_workload("io.py", self.base_args() + ["--iters", "1", "--only", "scratch,data,ckpt"])
        self.assertProtocol(run, "io")
        self.assertEqual(run.samples("data_read_mb_s"), [])
        self.assertEqual(run.samples("ckpt_write_mb_s"), [])
        self.assertEqual(len(run.samples("scratch_write_mb_s")), 1)
        self.assertEqual(set(run.summary["skipped"]), {"data", "ckpt"})

    def test_ckpt_as_file_path(self):
        target = os.path.join(self.ckpt, "model.pt")
        run = run_workload("io.py", self.base_args() + ["--iters", "1", "--only", "ckpt", "--ckpt", target])
        self.assertProtocol(run, "io")
        self.assertEqual(len(run.samples("ckpt_write_mb_s")), 1)
        self.assertFalse(os.path.exists(target))

    def test_copyup_discovery_picks_one_file_per_class(self):
        run = run_workload("io.py", self.base_args() + ["--only", "copyup", "--copyup-sizes-mb", "1"])
        self.assertProtocol(run, "io")
        info = run.summary["copyup"]
        # auto mode: in-place (so discovery) only in a container; natively own files of the class sizes
        self.assertEqual(info["source"], "discovered" if info["in_container"] else "size classes")
        for row in info["files"]:
            self.assertEqual(row["size_class"], "1MiB")
            self.assertTrue(0.5 * (1 << 20) <= row["size"] <= 2 * (1 << 20))
            if row.get("mode") == "in-place":  # only ever inside a container, on OverlayFS
                self.assertIn("overlay", row["fstype"])
        self.assertEqual(os.listdir(self.scratch), [])

    def test_own_file_probe_needs_no_discovery(self):
        run = run_workload("io.py", self.base_args() + ["--only", "copyup", "--copyup-mode", "own-file", "--copyup-sizes-mb", "1,2"])
        self.assertProtocol(run, "io")
        info = run.summary["copyup"]
        self.assertEqual(info["source"], "size classes")
        self.assertNotIn("entries", info)  # no walk of the library folders
        self.assertEqual([(r["size_class"], r["size"], r["mode"]) for r in info["files"]], [("1MiB", 1 << 20, "own-file"), ("2MiB", 2 << 20, "own-file")])
        self.assertEqual(os.listdir(self.scratch), [])

    def test_discovery_stops_once_every_class_has_a_close_file(self):
        io_mod = load_io()
        root = tempfile.mkdtemp()
        try:
            # sparse files: only st_size matters to the walk
            for rel, mib in (("a/near.bin", 1.1), ("a/far.bin", 0.6), ("b/c/big.bin", 15.0)):
                path = os.path.join(root, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.truncate(int(mib * (1 << 20)))
            picks, info = io_mod.discover([1, 16], [], False, search=(root,))
            self.assertTrue(info["every_class_close"])
            self.assertEqual([(p["size_class"], os.path.relpath(p["path"], root)) for p in picks], [("1MiB", "a/near.bin"), ("16MiB", "b/c/big.bin")])
            # a class with no close file: the whole tree is walked and the nearest within x0.5..x2 wins
            picks, info = io_mod.discover([2], [], False, search=(root,))
            self.assertFalse(info["every_class_close"])
            self.assertEqual(info["candidates"], 3)
            self.assertEqual([os.path.relpath(p["path"], root) for p in picks], ["a/near.bin"])
        finally:
            shutil.rmtree(root)

    def test_in_place_refused_natively(self):
        before = digest(self.image_file)
        run = run_workload("io.py", self.base_args() + ["--only", "copyup", "--copyup-mode", "in-place", "--copyup-files", self.image_file])
        if in_container():
            # in a container: in place where the temp folder is OverlayFS, an own file elsewhere
            mode = copyup_mode_for(self.image_file)
            self.assertProtocol(run, "io")
            self.assertEqual(run.samples("copyup_ms")[0]["mode"], mode)
        else:
            mode = None
            self.assertError(run, "io", "bad_args", 2)
        self.assertEqual(digest(self.image_file), before)
        if mode != "in-place":
            self.assertEqual(os.stat(self.image_file).st_mtime, 1000000000)

    def test_empty_data_folder(self):
        empty = os.path.join(self.tmp, "empty")
        os.mkdir(empty)
        run = run_workload("io.py", self.base_args() + ["--only", "data", "--data", empty])
        self.assertError(run, "io", "bad_args", 2)

    def test_not_enough_space_is_a_runtime_error(self):
        run = run_workload("io.py", ["--scratch", self.scratch, "--only", "scratch", "--scratch-mb", str(1 << 30)])
        self.assertError(run, "io", "runtime", 1)
        self.assertIn("free", run.events[-1]["message"])
