#!/usr/bin/env python3
"""Where a check's wall time went: one line per process from a results folder (runs.jsonl for the slot,
results.jsonl[.gz] for the start-up phases the workload reported). Usage: timeline.py RESULTS_DIR"""
import gzip
import json
import os
import sys

d = sys.argv[1]
runs = [json.loads(line) for line in open(os.path.join(d, "runs.jsonl"))]
path = os.path.join(d, "results.jsonl")
opener = open if os.path.exists(path) else gzip.open
phases = {}
if os.path.exists(path) or os.path.exists(path + ".gz"):
    with opener(path if os.path.exists(path) else path + ".gz", "rt") as fh:
        for line in fh:
            r = json.loads(line)
            if r["metric"] in ("imports_s", "device_init_s", "first_kernel_s", "prepare_s", "launch_s"):
                phases.setdefault((r["workload"], r["environment"], r["run"]), {})[r["metric"]] = r["value"]
t0 = min(r["start_ms"] for r in runs)
print("workload arm run gpu | start end slot | measured | launch imports init first prepare")
for r in runs:
    p = phases.get((r["workload"], r["environment"], r["run"]), {})
    print(
        "%s %s %s %s | %.1f %.1f %.1f | %.1f | %s"
        % (
            r["workload"], r["environment"], r["run"], r.get("gpu"),
            (r["start_ms"] - t0) / 1e3, (r["end_ms"] - t0) / 1e3, (r["end_ms"] - r["start_ms"]) / 1e3,
            r.get("measured_s") or 0,
            " ".join("%.2f" % p.get(k, float("nan")) for k in ("launch_s", "imports_s", "device_init_s", "first_kernel_s", "prepare_s")),
        )
    )
