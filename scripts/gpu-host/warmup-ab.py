#!/usr/bin/env python3
"""llm warm-up requests, 1 vs 2 (e2e-neighbours.sh warmup-ab): per process the run's medians and its first
measured request against the rest; then per warm-up count the mean over processes. Usage: warmup-ab.py DIR"""
import glob
import json
import os
import re
import statistics as st
import sys

rows = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "llm-*-warmup*.jsonl")), key=lambda p: int(re.findall(r"llm-(\d+)-", p)[0])):
    w = int(re.findall(r"warmup(\d+)", path)[0])
    vals = {"tpot_ms": {}, "ttft_ms": {}}
    phases = {}
    for line in open(path):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("event") == "sample" and e.get("metric") in vals:
            vals[e["metric"]][e["iteration"]] = e["value"]
        elif e.get("event") == "phase":
            phases[e["name"]] = e["duration_s"]
    if not vals["tpot_ms"]:
        print("%s: no samples" % os.path.basename(path))
        continue
    row = {"file": os.path.basename(path), "warmup": w, "prepare_s": phases.get("prepare")}
    for m, by_it in vals.items():
        xs = [by_it[k] for k in sorted(by_it)]
        row[m] = st.median(xs)
        row[m + "_first_vs_rest_pct"] = (xs[0] / st.median(xs[1:]) - 1) * 100 if len(xs) > 1 else None
    rows.append(row)
    print(
        "%-24s warmup %d  prepare %.2f s  tpot %.4f ms (first %+.2f%%)  ttft %.3f ms (first %+.2f%%)"
        % (row["file"], w, row["prepare_s"] or float("nan"), row["tpot_ms"], row["tpot_ms_first_vs_rest_pct"],
           row["ttft_ms"], row["ttft_ms_first_vs_rest_pct"])
    )
for w in sorted({r["warmup"] for r in rows}):
    rs = [r for r in rows if r["warmup"] == w]
    print(
        "warmup %d: %d processes, prepare %.2f s, tpot median mean %.4f ms, first request %+.2f%% (max %+.2f%%), "
        "ttft %.3f ms, first %+.2f%%"
        % (w, len(rs), st.mean(r["prepare_s"] for r in rs), st.mean(r["tpot_ms"] for r in rs),
           st.mean(r["tpot_ms_first_vs_rest_pct"] for r in rs), max(r["tpot_ms_first_vs_rest_pct"] for r in rs),
           st.mean(r["ttft_ms"] for r in rs), st.mean(r["ttft_ms_first_vs_rest_pct"] for r in rs))
    )
