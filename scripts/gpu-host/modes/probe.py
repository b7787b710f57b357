"""Issue 52's probe, apart from the tool: starts an image N times, one process each (matmul.py from the repository,
mounted read-only), and reads each process's own mean kernel time and the entrypoint's stderr line saying whether
that start took the slow path. Prints one JSON line per process and a summary: how many starts took the path,
and how many processes were slow (> 3% above the median of the others), and whether the two agree.

Usage: probe.py IMAGE N REPO [docker args...]   (GPU_DOCKER_ARGS split by the caller)
"""
import json
import statistics
import subprocess
import sys
import time

image, n, repo, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
device = "cpu" if "--cpu" in extra else "gpu"
extra = [a for a in extra if a != "--cpu"]
args = ["--device", device, "--seed", "1"] + (["--iters", "20"] if device == "gpu" else ["--iters", "30"])
rows = []
for i in range(n):
    t0 = time.time()
    p = subprocess.run(
        ["docker", "run", "--rm", "--init", "--network", "none", "-v", "%s/workloads:/probe-w:ro" % repo]
        + extra + [image, "python3", "/probe-w/matmul.py"] + args,
        capture_output=True, text=True, timeout=120,
    )
    mean = None
    for line in p.stdout.splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if isinstance(e, dict) and e.get("event") == "summary":
            mean = e.get("mean_ms")
    slow = "on" if "modes-slow-path: on" in p.stderr else "off" if "modes-slow-path: off" in p.stderr else "?"
    rows.append({"i": i + 1, "rc": p.returncode, "kernel_ms_mean": mean, "slow_path": slow, "wall_s": round(time.time() - t0, 2)})
    print(json.dumps(rows[-1]), flush=True)
slow_by_time = []
for i, r in enumerate(rows):
    v = r["kernel_ms_mean"]
    others = [x["kernel_ms_mean"] for j, x in enumerate(rows) if j != i and x["kernel_ms_mean"]]
    if v and others:
        slow_by_time.append(v > 1.03 * statistics.median(others))
    else:
        slow_by_time.append(None)
took = sum(r["slow_path"] == "on" for r in rows)
agree = sum((r["slow_path"] == "on") == s for r, s in zip(rows, slow_by_time) if s is not None)
on = [r["kernel_ms_mean"] for r in rows if r["slow_path"] == "on" and r["kernel_ms_mean"]]
off = [r["kernel_ms_mean"] for r in rows if r["slow_path"] == "off" and r["kernel_ms_mean"]]
print(json.dumps({
    "image": image, "processes": n, "failed": sum(r["rc"] != 0 for r in rows),
    "took_slow_path": took, "slow_by_time": sum(bool(s) for s in slow_by_time),
    "time_agrees_with_path": agree,
    "slowdown_pct_on_vs_off": round(100 * (statistics.mean(on) / statistics.mean(off) - 1), 2) if on and off else None,
}))
